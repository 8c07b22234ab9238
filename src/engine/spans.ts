// The tracing seam for the floors above the engine (the runtime installs it): see src/eval/spans.ts.
export { setSpans, spans, type ClientSpan, type ServerSpan, type Spans } from '../eval/spans.js';
