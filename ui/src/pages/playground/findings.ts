// What the last evaluation found, per file — errors, coverage, the traced line — and
// painting it on the source editor for the file it shows.

import type { EditorView } from '@codemirror/view';
import type { ApiError, EvalResponse, Location } from '../../api.js';
import { showErrors, showMarks } from '../../editor.js';

export class Findings {
  errors: ApiError[] = [];
  coverage: EvalResponse['coverage'];
  traced: Location | undefined;

  constructor(private readonly source: EditorView) {}

  reset(): void {
    this.errors = [];
    this.coverage = undefined;
    this.traced = undefined;
  }

  /** Shows what concerns `file`, the one in the editor. */
  paint(file: string): void {
    const cov = this.coverage?.[file];
    showMarks(this.source, {
      covered: cov?.covered,
      notCovered: cov?.not_covered,
      traced: this.traced && this.traced.file === file ? this.traced.row : undefined,
    });
    showErrors(this.source, this.errors.filter((e) => e.location?.file === file).map((e) => ({ row: e.location?.row, col: e.location?.col, message: e.message })));
  }
}
