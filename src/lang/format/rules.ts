// Writing rules: heads (refs, function arguments, `contains`, values), bodies after
// `if` (kept on one line when the single expression was on the head's line), `else`
// chains, constants without bodies, and the blank lines between rules (adjacent
// one-liners stay grouped, as opa fmt leaves them).

import type { Body, Head, Rule, Term } from '../ast.js';
import { writeBody, writeExpr } from './body.js';
import { bodyCloseRow, closingRow, elseWasInline } from './source.js';
import { writeIterable, writeRaw, writeRef, writeTerm } from './terms.js';
import { CommentClash, commentRow, type Writer } from './writer.js';

function isTrue(t: Term | undefined): boolean {
  return t?.type === 'boolean' && t.value;
}

/** A body that is just `true` (written or generated for `p := 1`): the rule is a constant. */
function isTrueBody(body: Body): boolean {
  if (body.length !== 1) return false;
  const e = body[0]!;
  return !e.negated && !e.with?.length && !Array.isArray(e.terms) && isTrue(e.terms as Term);
}

/** The `true` value the parser gives `p if ...` and `f(x) { }`: not written by the user. */
function generatedValue(h: Head): boolean {
  return isTrue(h.value) && h.value!.location?.text !== 'true';
}

export function writeRules(w: Writer, rules: Rule[]): void {
  rules.forEach((rule, i) => {
    w.insertComments(rule.location?.row ?? -1);
    const m = w.mark();
    try {
      writeRule(w, rule, false);
    } catch (e) {
      if (!(e instanceof CommentClash) || !rule.location?.text) throw e;
      w.reset(m);
      w.startLine();
      writeRaw(w, rule.location);
      w.endLine();
    }
    const next = rules[i + 1];
    if (next && groupable(w, rule) && groupable(w, next) && next.location && rule.location && next.location.row === rule.location.row + 1) {
      return;
    }
    w.blankLine();
  });
}

function groupable(w: Writer, rule: Rule): boolean {
  if (rule.body.length > 1 || rule.default || !rule.location) return false;
  return (w.flags.regoV1 || w.flags.ifs) && (w.flags.contains || rule.head.value !== undefined);
}

function writeRule(w: Writer, rule: Rule, isElse: boolean): void {
  if (!isElse) w.startLine();
  if (rule.default) w.write('default ');
  const expandedConst = isTrueBody(rule.body) && !rule.else;
  writeHead(w, rule, expandedConst, isElse);
  if (rule.body.length === 0 || expandedConst) {
    w.endLine();
    return;
  }
  const head = rule.head;
  const headRow = (isElse ? rule.location?.row : head.location?.row) ?? 0;
  if ((w.flags.regoV1 || w.flags.ifs) && (w.flags.contains || head.value !== undefined)) {
    w.write(' if');
    if (rule.body.length === 1 && rule.body[0]!.location?.row === headRow) {
      w.write(' ');
      writeExpr(w, rule.body[0]!);
      w.endLine();
      if (rule.else) writeElse(w, rule);
      return;
    }
  }
  w.write(' {');
  w.endLine();
  w.up();
  writeBody(w, rule.body);
  w.insertComments(bodyCloseRow(rule.location, rule.body[0]?.location));
  w.down();
  w.startLine();
  w.write('}');
  if (rule.else) writeElse(w, rule);
}

function writeElse(w: Writer, rule: Rule): void {
  const els = rule.else!;
  const elseRow = els.location?.row ?? 0;
  const wasInline = elseWasInline(rule.location, elseRow);
  const commentAbove = w.comments.some((c) => commentRow(c) < elseRow) || w.hasPending();
  if (!commentAbove && wasInline) w.write(' ');
  else {
    w.blankLine();
    w.startLine();
  }
  w.insertComments(elseRow);
  if (!w.inline) w.startLine();
  writeRule(w, els, true);
}

function writeHead(w: Writer, rule: Rule, expandedConst: boolean, isElse: boolean): void {
  const head = rule.head;
  if (isElse) w.write('else');
  else {
    const ref = head.ref;
    if (w.flags.refHeads || ref.length === 1) writeRef(w, ref);
    else {
      // Without ref heads in the module, `p.q` is written `p["q"]`, as opa fmt does.
      writeRef(w, ref.slice(0, 1));
      w.write('[');
      writeTerm(w, ref[1]!);
      w.write(']');
    }
    if (head.args && head.args.length > 0) {
      w.write('(');
      writeIterable(w, head.args, head.location, closingRow(head.location, '(', ')'), (a) => writeTerm(w, a));
      w.write(')');
    }
  }
  if (head.key && !head.value) {
    if (w.flags.contains) {
      w.write(' contains ');
      writeTerm(w, head.key);
    } else {
      w.write('[');
      writeTerm(w, head.key);
      w.write(']');
    }
  }
  const value = head.value;
  if (!value) return;
  // An explicit `p.q := true` keeps its value: without it the rule would parse differently.
  const keepTrue = !isElse && !generatedValue(head) && head.ref.length === 2 && !head.args?.length;
  if (!(head.key || !isTrue(value) || expandedConst || rule.default || keepTrue)) return;
  // A constant without arguments keeps its value (`a.b.c := true`): a bare `p` is no rule.
  const refConst = expandedConst && !head.key && !head.args?.length;
  if (!isElse && generatedValue(head) && !refConst) return;
  w.write(head.assign || w.flags.regoV1 ? ' := ' : ' = ');
  if (!isElse) return writeTerm(w, value);
  // An else value stays on the else line: comments above it move into the body.
  const held = w.comments;
  w.comments = [];
  writeTerm(w, value);
  w.comments = held;
}
