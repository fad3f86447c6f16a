// The rules of an answer that need no model: what kind of question it is, which of its words say
// what about, how a moment is named in an answer, and what is said when the index holds nothing.
import { queryTerms } from '../search/tokenizer.ts';
import { STOPWORDS } from '../search/stopwords.ts';

export const NO_EVIDENCE = 'The index holds no evidence that answers this.';
/** A language model wrote nothing that the evidence it was given supports. */
export const NO_SUPPORTED_ANSWER = 'The evidence found does not answer this.';
/** Words of a question that say what is asked, not what about. */
const QUESTION_WORDS = new Set([...STOPWORDS, ...'many much here about tell say said appear appears'.split(' ')]);

export type QuestionType = 'who' | 'when' | 'where' | 'how_many' | 'what';

export function questionType(q: string): QuestionType {
  const s = q.trim().toLowerCase();
  if (/^how (many|much)\b/.test(s)) return 'how_many';
  if (/^(who|whom)\b/.test(s)) return 'who';
  if (/^(when|at what (time|point)|what time)\b/.test(s)) return 'when';
  if (/^where\b/.test(s)) return 'where';
  return 'what';
}

export function contentWords(q: string): string[] {
  return queryTerms(q).filter((w) => !QUESTION_WORDS.has(w) && w.length > 1);
}

export function clock(t: number): string {
  const s = Math.max(0, Math.round(t));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

export function where(h: { asset_kind: string; page: number | null; timestamp: number; file_name: string }): string {
  if (h.page !== null) return `${h.file_name}, page ${h.page}`;
  if (h.asset_kind === 'video') return `${h.file_name} at ${clock(h.timestamp)}`;
  return h.file_name;
}
