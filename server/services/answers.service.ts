// Recall and chat: answers composed only from indexed evidence, with numbered citations to the
// moments, pages and boxes they rest on. Without a language model the composer is extractive: it
// picks and orders the best evidence sentences, resolves simple question types from the index
// (who / when / how many), and says plainly when the index holds no evidence. With one installed
// (docs/answers.md) the same evidence is given to the model, which writes the answer; what it
// writes is held to that evidence (answers/grounded.ts). Counts stay computed from the index, and
// a question without evidence is refused before any model is asked.
import type { Store } from '../store/index.ts';
import { AppError, Errors } from '../errors.ts';
import type { AuthContext } from '../contract/auth.ts';
import type { SearchService } from './search.service.ts';
import type { AssetsService } from './assets.service.ts';
import type { FileRef } from '../contract/common.ts';
import type { Evidence } from '../contract/answers.ts';
import type { FoundHit } from '../search/hits.ts';
import { endsInQuotation, looksLikeRunningHead, sentenceSpans, sentences, words as wordsOf } from '../search/tokenizer.ts';
import type { AnswerWriter } from '../ml/answer-writer.ts';
import { EVIDENCE_MAX, answerPrompt, focus, ground, type PromptEvidence } from '../answers/grounded.ts';
import { NO_EVIDENCE, NO_SUPPORTED_ANSWER, clock, contentWords, questionType, where, type QuestionType } from '../answers/question.ts';

/** The length of a recall answer written by a language model (recall takes no max_tokens). */
const RECALL_TOKENS = 256;
/** A sentence read across passages is kept whole up to this many characters (about 80 words). */
const MAX_SENTENCE_CHARS = 480;
/** Passages read after a hit's, at most, to end its last sentence. */
const MAX_FOLLOWING = 4;
/** A text that ends a sentence: . ! ? … with any closing quote or bracket. */
const ENDED = /[.!?…।]["'’”)\]]*\s*$/;
/** A text that goes on a sentence begun before it: its first word in lower case. */
const GOES_ON = /^[\s"'‘“(]*\p{Ll}/u;

/** Whether the last sentence of a hit's text read on with `after` still holds the hit and is unfinished at its end. */
function unfinished(hit: string, after: string): boolean {
  const read = after ? `${hit} ${after}` : hit;
  const last = sentenceSpans(read, { quotations: true }).at(-1);
  // The last sentence alone is asked about its quotation: the text is not segmented again.
  return last !== undefined && last.start < hit.length && (!ENDED.test(read) || endsInQuotation(last.text));
}

/** A cited moment as answers find it: its picture is a stored file, given a URL by the API. */
export type CitedMoment = Omit<Evidence, 'frame_url'> & { frame: FileRef | null };

interface Composed {
  answer: string;
  evidence: 'found' | 'none';
  question_type: QuestionType;
  cited: CitedMoment[];
  /** The evidence found, best first, that a language model may write from (empty for counts and refusals). */
  pool: FoundHit[];
  /** A count computed from the index: the answer is exact and no model rewrites it. */
  counted?: boolean;
  /** The question's own words (what the evidence is focused on). */
  asked?: string[];
}

export type Composer = 'extractive' | 'generative';

/** What an answer-writing request may add: a model's text arrives in chunks; a signal stops it. */
export interface Streaming {
  /** The evidence the model is given (numbered as it may cite it), before it writes. */
  onEvidence?: (given: CitedMoment[]) => void;
  onChunk?: (text: string) => void;
  signal?: AbortSignal;
}

export class AnswersService {
  constructor(
    private readonly store: Store,
    private readonly search: SearchService,
    private readonly assets: AssetsService,
    private readonly writer: AnswerWriter | null = null,
  ) {}

  /** `generative` when a language model is installed to write answers, else `extractive`. */
  composer(): Composer {
    return this.writer?.model() ? 'generative' : 'extractive';
  }

  private toEvidence(h: FoundHit, n: number, snippet: string): CitedMoment {
    return {
      n,
      video_id: h.video_id,
      asset_kind: h.asset_kind,
      file_name: h.file_name,
      timestamp: h.timestamp,
      page: h.page,
      snippet,
      modality: h.modality,
      score: h.score,
      frame: h.frame,
      region: h.region,
    };
  }

  /** "how many faces/people/<object> on page N / at T / in it": counted from the regions held. */
  private count(auth: AuthContext, q: string, videoIds: string[] | undefined): Composed | null {
    const m =
      /how many\s+([a-z ]+?)(?:\s+(?:are|is|were|was|do|does|appear|can)\b.*?)?(?:\s+(?:on|in|at)\s+(?:page\s+(\d+)|(\d+(?:\.\d+)?)\s*s(?:ec(?:onds?)?)?))?\s*\??$/i.exec(
        q.trim(),
      );
    if (!m || !videoIds || videoIds.length !== 1) return null;
    const asset = this.assets.visible(auth.workspaceId, videoIds[0]);
    const what = m[1].trim().toLowerCase().replace(/s$/, '');
    const page = m[2] ? Number(m[2]) : null;
    const t = m[3] ? Number(m[3]) : null;
    const at = page !== null ? page - 1 : t;
    const regions = this.store.regions.all(asset.id).filter((r) => at === null || Math.abs(r.timestamp - at) < (asset.kind === 'video' ? 1 : 1e-9));
    const kind = ['face', 'people', 'person'].includes(what) ? 'face' : 'object';
    const matching = regions.filter((r) => (kind === 'face' ? r.kind === 'face' : r.kind === 'object' && r.label === what));
    const placeText = page !== null ? ` on page ${page}` : t !== null ? ` at ${clock(t)}` : '';
    const noun = kind === 'face' ? (matching.length === 1 ? 'face' : 'faces') : matching.length === 1 ? what : `${what}s`;
    const where0 = matching[0];
    const cited: CitedMoment[] = where0
      ? [
          {
            n: 1,
            video_id: asset.id,
            asset_kind: asset.kind,
            file_name: asset.file_name,
            timestamp: where0.timestamp,
            page: asset.kind === 'document' ? Math.floor(where0.timestamp) + 1 : null,
            snippet: `${matching.length} ${noun}`,
            modality: kind === 'face' ? 'person' : 'object',
            score: 1,
            frame: null,
            region: { x: where0.x, y: where0.y, w: where0.w, h: where0.h, label: where0.label ?? 'face', source: where0.source },
          },
        ]
      : [];
    return {
      answer: `${matching.length} ${noun}${placeText} in ${asset.file_name}${cited.length ? ' [1]' : ''}.`,
      evidence: 'found',
      question_type: 'how_many',
      cited,
      pool: [],
      counted: true,
    };
  }

  /**
   * The sentences of a hit, whole: a document's passages are cut where its lines are, not where its
   * sentences end, so a sentence begun in the passage before or ended in the one after is read
   * across them ("…as the White Rabbit hurried by–the" goes on to its full stop), over the turn of
   * a page too where the hit's text is unfinished there ("…and Alice called" at the foot of page 25
   * goes on with "out as loud as she could" on page 26, and a quotation left open at the foot of a
   * page goes on to its closing mark), past the running heads and page numbers at the page's ends
   * ("35", "68 CHAPTER 9. THE MOCK TURTLE’S STORY").
   */
  private wholeSentences(h: FoundHit): string[] {
    const text = h.passage?.text ?? h.snippet.text;
    if (h.asset_kind !== 'document' || !h.passage || h.page === null) return sentences(text, { quotations: true });
    const idx = h.passage.idx;
    // The passages of a page but its running heads, feet and number.
    const bodyOf = (page: number) => this.store.media.passages(h.video_id, page).filter((p) => !looksLikeRunningHead(p.text));
    const onPage = bodyOf(h.page);
    let before = [...onPage].reverse().find((p) => p.idx < idx)?.text ?? '';
    if (!before && GOES_ON.test(text)) before = bodyOf(h.page - 1).at(-1)?.text ?? '';
    // The passage after the hit, and more while the hit's last sentence is unfinished at their end
    // (a quotation still open, or no full stop yet), on over the turn of the page.
    const rest = onPage.filter((p) => p.idx > idx).map((p) => p.text);
    const following: string[] = rest.splice(0, 1);
    let turned = false;
    while (following.length < MAX_FOLLOWING && unfinished(text, following.join(' '))) {
      if (rest.length === 0 && !turned) {
        turned = true;
        rest.push(...bodyOf(h.page + 1).map((p) => p.text));
      }
      const more = rest.shift();
      if (more === undefined) break;
      following.push(more);
    }
    const after = following.join(' ');
    const joined = [before, text, after].filter(Boolean).join(' ');
    const start = before ? before.length + 1 : 0;
    const end = start + text.length;
    // A sentence longer than an answer's line keeps to its part in this passage, as before.
    return sentenceSpans(joined, { quotations: true })
      .filter((s) => s.end > start && s.start < end)
      .map((s) => (s.text.length <= MAX_SENTENCE_CHARS ? s.text : joined.slice(Math.max(s.start, start), Math.min(s.end, end)).trim()));
  }

  private async compose(auth: AuthContext, q: string, videoIds: string[] | undefined): Promise<Composed> {
    const type = questionType(q);
    if (type === 'how_many') {
      const counted = this.count(auth, q, videoIds);
      if (counted) return counted;
    }
    const words = contentWords(q);
    const none: Composed = { answer: NO_EVIDENCE, evidence: 'none', question_type: type, cited: [], pool: [] };
    if (words.length === 0) return none;
    // A word of the question that the index has never seen (a name, a place) cannot be answered
    // from it: better to say so than to answer about the other words.
    const known = this.store.search.knownWords(words);
    const unknown = words.filter((w) => !known.has(w));
    if (unknown.length) {
      const names = this.personWords(auth);
      if (unknown.some((w) => !names.has(w))) return none;
    }
    const hits: FoundHit[] = [];
    for (const v of videoIds ?? [undefined]) {
      hits.push(
        ...(
          await this.search.search(auth, {
            query: words.join(' '),
            limit: 20,
            offset: 0,
            group_by: 'moment',
            rerank: true,
            search_options: { interpret: false },
            ...(v ? { video_id: v } : {}),
          })
        ).hits,
      );
    }
    hits.sort((a, b) => b.score - a.score);

    // People named in the question: their appearances answer who / when.
    const people = hits.filter((h) => h.modality === 'person' && h.region?.source === 'people');
    if ((type === 'when' || type === 'who' || type === 'where') && people.length) {
      const name = people[0].region?.label ?? '';
      const cited = people.slice(0, 8).map((h, i) => this.toEvidence(h, i + 1, `${name}: ${where(h)}`));
      const list = cited.map((c) => `${where(c)} [${c.n}]`).join(', ');
      return { answer: `${name} appears in ${list}.`, evidence: 'found', question_type: type, cited, pool: people.slice(0, EVIDENCE_MAX) };
    }

    // Otherwise: the sentences of the evidence that share most of the question's words.
    const scored: Array<{ text: string; hit: FoundHit; score: number }> = [];
    for (const h of hits) {
      for (const s of this.wholeSentences(h)) {
        const low = s.toLowerCase();
        const covered = words.filter((w) => new RegExp(`(^|[^\\p{L}\\p{N}])${w}`, 'u').test(low)).length / words.length;
        if (covered === 0) continue;
        scored.push({ text: s, hit: h, score: covered * 2 + h.score });
      }
    }
    scored.sort((a, b) => b.score - a.score);
    const best = scored[0];
    if (!best || best.score < 1.0 + 0.2 * 2) return none; // at least 60% of the words in one sentence
    const chosen: typeof scored = [];
    for (const s of scored) {
      if (chosen.length >= 3 || s.score < best.score * 0.6) break;
      if (!chosen.some((c) => c.text === s.text)) chosen.push(s);
    }
    const cited: CitedMoment[] = [];
    const parts = chosen.map((c) => {
      let n = cited.find((e) => e.video_id === c.hit.video_id && e.timestamp === c.hit.timestamp)?.n;
      if (!n) {
        n = cited.length + 1;
        cited.push(this.toEvidence(c.hit, n, c.text));
      }
      const lead = type === 'when' && c.hit.asset_kind === 'video' ? `At ${clock(c.hit.timestamp)}: ` : '';
      return `${lead}${c.text} [${n}]`;
    });
    // The model's evidence: the moments holding the sentences chosen first, then the best others.
    const pool: FoundHit[] = [];
    const key = (h: FoundHit) => `${h.video_id}@${h.timestamp}@${h.passage?.idx ?? ''}`;
    for (const h of [...chosen.map((c) => c.hit), ...hits]) {
      if (pool.length >= EVIDENCE_MAX) break;
      if (!pool.some((p) => key(p) === key(h))) pool.push(h);
    }
    return { answer: parts.join(' '), evidence: 'found', question_type: type, cited, pool, asked: words };
  }

  /**
   * The language model writes the answer from the evidence the extractive composer found; its
   * sentences are then held to that evidence. Null when no model is installed, or when the index
   * answers exactly (counts) or not at all (refusals).
   */
  private async generate(
    composer: Composer,
    q: string,
    r: Composed,
    maxTokens: number,
    s: Streaming,
  ): Promise<{ answer: string; evidence: 'found' | 'none'; cited: CitedMoment[]; truncated: boolean; stopped: boolean } | null> {
    if (composer !== 'generative' || !this.writer || r.evidence === 'none' || r.counted || r.pool.length === 0) return null;
    const given: PromptEvidence[] = r.pool.map((h, i) => ({
      n: i + 1,
      where: where(h),
      text:
        h.modality === 'person' && h.region?.source === 'people'
          ? `${h.region.label} appears in ${where(h)}.`
          : focus(h.passage?.text ?? h.snippet.text, r.asked ?? []),
    }));
    s.onEvidence?.(r.pool.map((h, i) => this.toEvidence(h, i + 1, given[i].text.replace(/\s+/g, ' ').slice(0, 300))));
    const written = await this.writer.write({ prompt: answerPrompt(q, given), maxTokens, cites: given.map((g) => g.n), onChunk: s.onChunk, signal: s.signal });
    const g = ground(written.text, given);
    if (!g.answer && written.truncated) throw new AppError('invalid_request', 422, 'max_tokens is too small for an answer.');
    if (!g.answer) {
      return { answer: written.stopped ? '' : NO_SUPPORTED_ANSWER, evidence: 'none', cited: [], truncated: written.truncated, stopped: written.stopped };
    }
    const cited = g.cited.map((n) => this.toEvidence(r.pool[n - 1], n, given[n - 1].text.replace(/\s+/g, ' ').slice(0, 300)));
    return { answer: g.answer, evidence: 'found', cited, truncated: written.truncated, stopped: written.stopped };
  }

  /** Every word of the workspace's people's names. */
  private personWords(auth: AuthContext): Set<string> {
    return new Set(this.store.people.list(auth.workspaceId, true).flatMap((p) => wordsOf(p.name)));
  }

  async recall(auth: AuthContext, videoId: string, query: string) {
    const asset = this.assets.visible(auth.workspaceId, videoId);
    const r = await this.compose(auth, query, [asset.id]);
    const composer = this.composer();
    const g = await this.generate(composer, query, r, RECALL_TOKENS, {});
    return {
      video_id: asset.id,
      query,
      answer: g?.answer ?? r.answer,
      evidence: g?.evidence ?? r.evidence,
      question_type: r.question_type,
      moments: g?.cited ?? r.cited,
      composer,
    };
  }

  /** Checks the request before anything is written (a stream starts only on a valid request). */
  checkChat(auth: AuthContext, req: { video_ids?: string[] }): void {
    for (const v of req.video_ids ?? []) {
      if (!this.store.assets.findVisible(v, auth.workspaceId)) throw Errors.notFound(`Video ${v}`);
    }
  }

  async chat(auth: AuthContext, req: { query: string; video_ids?: string[]; max_tokens: number }, s: Streaming = {}) {
    this.checkChat(auth, req);
    const r = await this.compose(auth, req.query, req.video_ids);
    const composer = this.composer();
    const g = await this.generate(composer, req.query, r, req.max_tokens, s);
    if (g) {
      return {
        query: req.query,
        answer: g.answer,
        evidence: g.evidence,
        question_type: r.question_type,
        citations: g.cited,
        composer,
        truncated: g.truncated,
        stopped: g.stopped,
      };
    }
    // Tokens are counted as words and punctuation runs, the way most tokenizers split English.
    const tokens = r.answer.match(/\S+/g) ?? [];
    const budget = Math.floor(req.max_tokens / 1.3);
    const truncated = tokens.length > budget;
    const answer = truncated ? `${tokens.slice(0, budget).join(' ')} …` : r.answer;
    const cited = r.cited.filter((c) => answer.includes(`[${c.n}]`));
    if (!answer.trim()) throw new AppError('invalid_request', 422, 'max_tokens is too small for an answer.');
    return { query: req.query, answer, evidence: r.evidence, question_type: r.question_type, citations: cited, composer, truncated, stopped: false };
  }
}
