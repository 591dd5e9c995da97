// Answers of a pure function kept by their argument: catalogues and pages ask the same few values again and again
// (a location on every plan, a spec key on every card). Kept up to a bound, then started afresh rather than grown.

/** `compute`, answering each argument once until `max` are kept (then all are forgotten and kept anew). */
export function keptAnswers<K, V>(max: number, compute: (key: K) => V): (key: K) => V {
  const kept = new Map<K, V>();
  return (key) => {
    let value = kept.get(key);
    if (value === undefined && !kept.has(key)) {
      value = compute(key);
      if (kept.size >= max) kept.clear();
      kept.set(key, value);
    }
    return value as V;
  };
}
