// Runs an experiment generator (web/experiments/) to completion, as the worker would, keeping
// the progress values it reported.
export function drain(it) {
  const progress = [];
  for (;;) {
    const s = it.next();
    if (s.done) return { result: s.value, progress };
    progress.push(s.value.progress);
  }
}
export const run = (it) => drain(it).result;
