// Dates and ranges in a query, as people write them: "2019", "June 2021", "14 July 2019", "last
// summer", "Christmas 2018", "between March and May 2020", "last week", "yesterday". chrono-node
// reads the calendar phrases; added here: bare years, seasons (meteorological, northern
// hemisphere: winter = December to February), Christmas (eve, day), New Year (eve, day) and Easter
// (Sunday, Monday) with or without a year, "the weekend of 3 May", and "between A and B". Each becomes a half-open range [after, before) in UTC as large as what was said: a year, a
// month, a day.
// English only: the package's main module loads every language's parsers (≈ 80 ms when the service
// starts, against ≈ 20); its `parse` is English's casual parser, as this one is.
import * as chrono from 'chrono-node/en';
import type { ParsedComponents } from 'chrono-node';

export interface DateRange {
  /** ISO 8601 instant, inclusive. */
  after: string;
  /** ISO 8601 instant, exclusive. */
  before: string;
  /** The words of the query that said it. */
  text: string;
}

const SEASONS: Record<string, [number, number]> = {
  spring: [3, 6],
  summer: [6, 9],
  autumn: [9, 12],
  fall: [9, 12],
  winter: [12, 15], // December to February of the next year
};

/** Easter Sunday (Gregorian; the anonymous algorithm). */
function easter(year: number): [number, number] {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  return [month, ((h + l - 7 * m + 114) % 31) + 1];
}

const utc = (y: number, m: number, d = 1) => new Date(Date.UTC(y, m - 1, d));
const iso = (d: Date) => d.toISOString();

const HOLIDAYS =
  /\b(?:(last|this|next)\s+)?(christmas(?:\s+(?:eve|day))?|xmas(?:\s+(?:eve|day))?|new\s+year(?:['’]?s)?(?:\s+(?:eve|day))?|easter(?:\s+(?:sunday|monday))?)(?:\s+(?:of\s+)?((?:19|20)\d{2}))?\b/gi;

/**
 * The year of a yearly day said without one: "last" is the latest one over, "next" the first to
 * come, "this" this calendar year's, and the day alone the latest one begun (on 25 December,
 * "christmas eve" is yesterday; on 23 December, last year's).
 */
function around(occurrence: (y: number) => { after: Date; before: Date }, rel: string | undefined, now: Date): number {
  const year = now.getUTCFullYear();
  const years = [year - 2, year - 1, year, year + 1];
  if (rel === 'this') return year;
  if (rel === 'next') return years.find((y) => occurrence(y).after > now) ?? year + 1;
  if (rel === 'last') return years.filter((y) => occurrence(y).before <= now).at(-1) ?? year - 1;
  return years.filter((y) => occurrence(y).after <= now).at(-1) ?? year - 1;
}

/** Ranges of the phrases chrono does not know, with where they stand in the query. */
function ownPhrases(q: string, now: Date): Array<{ index: number; text: string; after: Date; before: Date }> {
  const out: Array<{ index: number; text: string; after: Date; before: Date }> = [];
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth() + 1;
  for (const m of q.matchAll(/\b(?:(last|this|next)\s+)?(spring|summer|autumn|fall|winter)(?:\s+(?:of\s+)?((?:19|20)\d{2}))?\b/gi)) {
    // A season word alone is a word ("winter" may mean snow): a date needs "last", "this", "next" or a year.
    if (!m[1] && !m[3]) continue;
    const [from, to] = SEASONS[m[2].toLowerCase()];
    const occurrence = (y: number) => ({ after: utc(y, from), before: utc(y + Math.floor((to - 1) / 12), ((to - 1) % 12) + 1) });
    let y: number;
    if (m[3]) y = Number(m[3]);
    else {
      const rel = (m[1] ?? '').toLowerCase();
      // Occurrences around today: "last" is the latest one over, "next" the first to come,
      // "this" the one of this season-year, and the season alone the latest one begun.
      const candidates = [year - 2, year - 1, year, year + 1].map((yy) => ({ yy, ...occurrence(yy) }));
      const pick =
        rel === 'last'
          ? candidates.filter((c) => c.before <= now).at(-1)
          : rel === 'next'
            ? candidates.find((c) => c.after > now)
            : rel === 'this'
              ? candidates.find((c) => c.yy === (from === 12 && month < 3 ? year - 1 : year))
              : candidates.filter((c) => c.after <= now).at(-1);
      y = pick?.yy ?? year;
    }
    out.push({ index: m.index, text: m[0], ...occurrence(y) });
  }
  // Calendar weeks (from Monday), months and years relative to today.
  for (const m of q.matchAll(/\b(last|this|past|previous)\s+(week|month|year)\b/gi)) {
    const back = m[1].toLowerCase() === 'this' ? 0 : 1;
    const unit = m[2].toLowerCase();
    const today = utc(year, month, now.getUTCDate());
    let after: Date;
    let before: Date;
    if (unit === 'week') {
      const monday = new Date(today.getTime() - ((today.getUTCDay() + 6) % 7) * 86_400_000);
      after = new Date(monday.getTime() - back * 7 * 86_400_000);
      before = new Date(after.getTime() + 7 * 86_400_000);
    } else if (unit === 'month') {
      [after, before] = [utc(year, month - back), utc(year, month - back + 1)];
    } else {
      [after, before] = [utc(year - back, 1), utc(year - back + 1, 1)];
    }
    out.push({ index: m.index, text: m[0], after, before });
  }
  for (const m of q.matchAll(HOLIDAYS)) {
    const what = m[2].toLowerCase().replace(/['’]/g, '').replace(/\s+/g, ' ');
    const rel = m[1]?.toLowerCase();
    // "christmas tree" and "easter egg" are about things: a holiday is a date with "last", "this",
    // "next", a year, or a day named ("christmas eve", "new year's day", "easter sunday").
    if (!rel && !m[3] && !/ (eve|day|sunday|monday)$/.test(what)) continue;
    const occurrence = (y: number): { after: Date; before: Date } => {
      if (/^(christmas|xmas) eve$/.test(what)) return { after: utc(y, 12, 24), before: utc(y, 12, 25) };
      if (/^(christmas|xmas) day$/.test(what)) return { after: utc(y, 12, 25), before: utc(y, 12, 26) };
      if (/^(christmas|xmas)$/.test(what)) return { after: utc(y, 12, 24), before: utc(y, 12, 27) };
      if (/eve$/.test(what)) return { after: utc(y, 12, 31), before: utc(y + 1, 1, 1) }; // New Year's Eve of year y
      if (/day$/.test(what) && what.startsWith('new')) return { after: utc(y, 1, 1), before: utc(y, 1, 2) };
      if (what.startsWith('new')) return { after: utc(y - 1, 12, 31), before: utc(y, 1, 2) }; // the New Year y begins
      const [em, ed] = easter(y);
      if (what.endsWith('sunday')) return { after: utc(y, em, ed), before: utc(y, em, ed + 1) };
      if (what.endsWith('monday')) return { after: utc(y, em, ed + 1), before: utc(y, em, ed + 2) };
      return { after: utc(y, em, ed - 2), before: utc(y, em, ed + 2) }; // Good Friday to Easter Monday
    };
    out.push({ index: m.index, text: m[0], ...occurrence(m[3] ? Number(m[3]) : around(occurrence, rel, now)) });
  }
  // "the weekend of 3 May (2019)": the Saturday and Sunday of that date's week (Monday to Sunday).
  for (const m of q.matchAll(/\b(?:the\s+)?weekend\s+of\s+(?:the\s+)?/gi)) {
    const tail = q.slice(m.index + m[0].length);
    const r = DATE_WORDS.test(tail) ? chrono.parse(tail, now, { forwardDate: false })[0] : undefined;
    if (!r || r.index !== 0 || !r.start.isCertain('day') || !r.start.isCertain('month')) continue;
    const day = (y: number) => utc(y, r.start.get('month')!, r.start.get('day')!);
    let y = r.start.isCertain('year') ? r.start.get('year')! : now.getUTCFullYear();
    if (!r.start.isCertain('year') && day(y) > now) y--;
    const d = day(y);
    const saturday = new Date(d.getTime() + (d.getUTCDay() === 0 ? -1 : 6 - d.getUTCDay()) * 86_400_000);
    out.push({ index: m.index, text: `${m[0]}${r.text}`, after: saturday, before: new Date(saturday.getTime() + 2 * 86_400_000) });
  }
  return out;
}

/** The end of what a chrono component names: its day, month or year. */
function span(c: ParsedComponents, now: Date): { after: Date; before: Date } {
  const y = c.get('year') ?? now.getUTCFullYear();
  const m = c.get('month') ?? 1;
  const d = c.get('day') ?? 1;
  if (c.isCertain('day')) return { after: utc(y, m, d), before: utc(y, m, d + 1) };
  if (c.isCertain('month')) return { after: utc(y, m), before: utc(y, m + 1) };
  return { after: utc(y, 1), before: utc(y + 1, 1) };
}

/**
 * What any date chrono can read holds: a digit, a month or weekday, or a word of relative time.
 * Queries without one (most) are not given to chrono, whose parsers cost milliseconds a query.
 */
const DATE_WORDS =
  /\d|\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?|today|tonight|tomorrow|yesterday|now|noon|midnight|morning|afternoon|evening|night|weekends?|weeks?|months?|years?|days?|hours?|minutes?|fortnight|decades?|ago|last|next|this|past)\b/i;

/** The first date or range the query names, and the query without its words; null when none. */
export function findDates(query: string, now: Date): { range: DateRange; rest: string } | null {
  const q = query.replace(/\bbetween\s+(.+?)\s+and\s+/i, (_all, a: string) => `from ${a} to `);
  const own = ownPhrases(q, now);
  if (own.length) {
    const o = own[0];
    return { range: { after: iso(o.after), before: iso(o.before), text: o.text }, rest: cut(q, o.index, o.text.length) };
  }
  const found = DATE_WORDS.test(q) ? chrono.parse(q, now, { forwardDate: false }) : [];
  for (const r of found) {
    // A lone day-of-week or time of day ("at 5") is too weak to filter a library by.
    if (!r.start.isCertain('year') && !r.start.isCertain('month') && !r.start.isCertain('day') && !/\b(yesterday|today|week|month|year|ago)\b/i.test(r.text))
      continue;
    const start = span(r.start, now);
    const end = r.end ? span(r.end, now) : start;
    const text = /^from\s/i.test(q.slice(Math.max(0, r.index - 5), r.index + 1)) ? q.slice(r.index - 5, r.index + r.text.length) : r.text;
    return { range: { after: iso(start.after), before: iso(end.before), text: r.text }, rest: cut(q, q.indexOf(text), text.length) };
  }
  // A year on its own ("Paris 2019"): chrono leaves bare numbers alone.
  const year = /\b(?:in\s+)?((?:19|20)\d{2})\b/i.exec(q);
  if (year) {
    const y = Number(year[1]);
    return { range: { after: iso(utc(y, 1)), before: iso(utc(y + 1, 1)), text: year[0] }, rest: cut(q, year.index, year[0].length) };
  }
  return null;
}

function cut(q: string, index: number, length: number): string {
  return `${q.slice(0, index)} ${q.slice(index + length)}`
    .replace(/\b(from|in|on|during|taken|of)\s*$/i, '')
    .replace(/\s+/g, ' ')
    .trim();
}
