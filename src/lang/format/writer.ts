// The output side of the formatter: a text buffer with tab indentation and the queue of
// source comments still to be placed. Comments are placed by row, as `opa fmt` does:
// comments on rows before a node are written as their own lines above it, and a
// comment on the node's own row becomes an end-of-line comment, flushed when the
// current output line ends.

import type { Comment } from '../ast.js';

/** Two end-of-line comments compete for one output line; the caller falls back to source text. */
export class CommentClash extends Error {}

export interface FormatFlags {
  /** Output syntax is Rego v1 (forces `if`, `contains`, `:=` in heads). */
  regoV1: boolean;
  /** Write `if` before rule bodies. */
  ifs: boolean;
  /** Write partial set rules with `contains`. */
  contains: boolean;
  /** Some rule has a ref head (`a.b.c`), so all heads are written as refs. */
  refHeads: boolean;
  /** Names that must be written `["kw"]` in refs. */
  keywords: Set<string>;
}

export function commentRow(c: Comment): number {
  return c.location?.row ?? 0;
}

export class Writer {
  private buf = '';
  private level = 0;
  /** Whether the current output line has been started (indentation written). */
  inline = false;
  private beforeEnd: Comment | undefined;
  private delay = false;

  constructor(
    readonly flags: FormatFlags,
    /** Comments not yet written, in source order. */
    public comments: Comment[],
  ) {}

  text(): string {
    return this.buf;
  }
  mark(): { len: number; comments: Comment[]; beforeEnd: Comment | undefined; inline: boolean; level: number } {
    return { len: this.buf.length, comments: this.comments.slice(), beforeEnd: this.beforeEnd, inline: this.inline, level: this.level };
  }
  reset(m: ReturnType<Writer['mark']>): void {
    this.buf = this.buf.slice(0, m.len);
    this.comments = m.comments;
    this.beforeEnd = m.beforeEnd;
    this.inline = m.inline;
    this.level = m.level;
  }

  write(s: string): void {
    this.buf += s;
  }
  startLine(): void {
    this.inline = true;
    this.buf += '\t'.repeat(this.level);
  }
  endLine(): void {
    this.inline = false;
    if (this.beforeEnd && !this.delay) {
      this.buf += ' ' + commentText(this.beforeEnd);
      this.beforeEnd = undefined;
    }
    this.delay = false;
    this.buf += '\n';
  }
  /** Ends the current line (if any) and adds an empty one. */
  blankLine(): void {
    if (this.inline) this.endLine();
    this.buf += '\n';
  }
  writeLine(s: string): void {
    if (!this.inline) this.startLine();
    this.write(s);
    this.endLine();
  }
  up(): void {
    this.level++;
  }
  down(): void {
    if (this.level > 0) this.level--;
  }
  /** Keeps a pending end-of-line comment from being printed at the very next line end. */
  delayBeforeEnd(): void {
    this.delay = true;
  }
  startMultiline(): void {
    this.endLine();
    this.up();
    this.startLine();
  }

  /**
   * Writes the comments on rows before `row` as lines (keeping single blank lines
   * between them and before the node) and registers a comment on `row` itself as the
   * end-of-line comment. A row below 0 means "unknown" and places nothing.
   */
  insertComments(row: number): void {
    if (row < 0 || this.comments.length === 0) return;
    const before: Comment[] = [];
    let at: Comment | undefined;
    const after: Comment[] = [];
    for (const c of this.comments) {
      const r = commentRow(c);
      if (r < row) before.push(c);
      else if (r === row) at = c;
      else after.push(c);
    }
    if (before.length === 0 && !at) return;
    this.comments = after;
    this.writeComments(before);
    if (before.length > 0 && row - commentRow(before[before.length - 1]!) > 1) this.blankLine();
    if (at) {
      if (this.beforeEnd && this.beforeEnd !== at) throw new CommentClash();
      this.beforeEnd = at;
    }
  }

  writeComments(list: Comment[]): void {
    list.forEach((c, i) => {
      if (i > 0 && commentRow(c) - commentRow(list[i - 1]!) > 1) this.blankLine();
      this.writeLine(commentText(c));
    });
  }

  hasPending(): boolean {
    return this.beforeEnd !== undefined;
  }

  /** Forgets a pending end-of-line comment from rows [from, to) (it was written as source text). */
  dropPendingWithin(from: number, to: number): void {
    const r = this.beforeEnd ? commentRow(this.beforeEnd) : -1;
    if (r >= from && r < to) this.beforeEnd = undefined;
  }

  /** Comments still queued that lie before `row` (used to decide one-line layouts). */
  hasCommentsBefore(row: number): boolean {
    return this.comments.some((c) => commentRow(c) < row);
  }
}

/** `#text` without trailing whitespace, as opa fmt prints comments. */
export function commentText(c: Comment): string {
  return '#' + c.text.replace(/\s+$/u, '');
}
