// Running a plan: synchronously (no promise, no microtask hop) unless a built-in waits on
// I/O; then again on the async path, which never blocks other evaluations. Both tries
// share the options' nd_builtin_cache, so they see the same answers.

import { IOPending, type QueryPlan, type RawResult, type RunOptions } from '../eval/query.js';

export function runPlan(plan: QueryPlan, opts: RunOptions): RawResult[] | Promise<RawResult[]> {
  try {
    return plan.run(opts);
  } catch (e) {
    if (!(e instanceof IOPending)) throw e;
    // The synchronous try already started the I/O (an http.send request is on its way):
    // the async run takes it over with the same clock, never sending it a second time.
    const { pending } = (e as unknown as { suspend: { pending: Promise<unknown> } }).suspend;
    const resume = e.resume;
    return pending.then(() => plan.runAsync({ ...opts, ...resume }));
  }
}
