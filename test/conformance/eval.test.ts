// OPA's conformance cases through the evaluator as it runs by default (see eval-suite.ts).
import { conformanceEval } from './eval-suite.js';

conformanceEval('evaluation');
