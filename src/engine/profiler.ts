// The expression profiler (`opa eval --profile`), for the CLI: a light entry that loads the
// profiler only, not the whole facade.
export { Profiler, profileSortOrder, DEFAULT_PROFILE_SORT, type ExprStats } from '../eval/trace/profiler.js';
