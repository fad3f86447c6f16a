// English function words. Search leaves them out of what it looks up when the query has other
// words (they match most of a library and rank nothing), and marks them in snippets only when
// the query has no other; the rerank pass still sees the whole query.
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be been but by can could did do does for from had has have he her hers him his how i if in into is it its ' +
    'me my no nor not of on or our ours she so than that the their theirs them then there these they this those to too us was ' +
    'we were what when where which while who whom why will with would you your yours'
  ).split(' '),
);
