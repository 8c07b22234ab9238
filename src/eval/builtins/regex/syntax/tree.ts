// The parse stack of Go's regexp/syntax parser, with only as much of its tree as Go's
// limits need: nesting depth, program size and repeat counts are rejected with Go's
// errors at the moment Go's parser rejects them.

import { fail } from './errors.js';

export const MAX_REPEAT = 1000;
const MAX_HEIGHT = 1000;
const MAX_SIZE = Math.floor((128 << 20) / 40);

/** A parse-tree node, only as much of Go's as its limits need. */
export interface Node {
  op: 'lit' | 'class' | 'leaf' | 'cap' | 'rep' | 'star' | 'plus' | 'quest' | 'concat' | 'alt' | 'empty';
  min: number;
  max: number;
  subs: Node[];
  height: number;
  size: number;
}

/** Stack entries: nodes, or the pseudo-operators "(" and "|". */
type Item = Node | { op: 'lparen'; cap: number; name: string | undefined } | { op: 'bar' };

const isPseudo = (it: Item): boolean => it.op === 'lparen' || it.op === 'bar';
const isCharClass = (it: Item): boolean => it.op === 'lit' || it.op === 'class';

export class ParseStack {
  private readonly stack: Item[] = [];
  private numNodes = 0;

  /** `s` is the whole pattern, which Go quotes in its limit errors. */
  constructor(private readonly s: string) {}

  node(op: Node['op'], subs: Node[] = [], min = 0, max = 0): Node {
    this.numNodes++;
    let height = 1;
    for (const sub of subs) height = Math.max(height, sub.height + 1);
    let size = 0;
    const sub0 = subs[0]?.size ?? 0;
    switch (op) {
      case 'lit':
        size = 1;
        break;
      case 'cap':
      case 'star':
        size = 2 + sub0;
        break;
      case 'plus':
      case 'quest':
        size = 1 + sub0;
        break;
      case 'concat':
        for (const x of subs) size += x.size;
        break;
      case 'alt':
        for (const x of subs) size += x.size;
        size += subs.length - 1;
        break;
      case 'rep':
        size = max === -1 ? (min === 0 ? 2 + sub0 : 1 + min * sub0) : max * sub0 + (max - min);
        break;
      default:
    }
    return { op, min, max, subs, height, size: Math.max(1, size) };
  }

  private checkLimits(n: Node): void {
    if (n.size > MAX_SIZE) throw fail('expression too large', this.s);
    if (this.numNodes >= MAX_HEIGHT && n.height > MAX_HEIGHT) throw fail('expression nests too deeply', this.s);
  }

  push(it: Item): void {
    this.stack.push(it);
    if (!isPseudo(it)) this.checkLimits(it as Node);
  }

  leaf(op: Node['op'] = 'leaf'): void {
    this.push(this.node(op));
  }

  /** `(`: a group opens; `cap` is its group number, 0 for a non-capturing one. */
  openGroup(cap: number, name: string | undefined): void {
    this.push({ op: 'lparen', cap, name });
  }

  /** `|`. */
  bar(): void {
    this.concat();
    if (!this.swapVerticalBar()) this.push({ op: 'bar' });
  }

  /** `)`: the group's alternatives become one node (a capture when the group captures). */
  closeGroup(): void {
    this.concat();
    if (this.swapVerticalBar()) this.stack.pop();
    this.alternate();
    const n = this.stack.length;
    if (n < 2) throw fail('unexpected )', this.s);
    const re1 = this.stack.pop() as Node;
    const re2 = this.stack.pop()!;
    if (re2.op !== 'lparen') throw fail('unexpected )', this.s);
    this.push(re2.cap === 0 ? re1 : this.node('cap', [re1]));
  }

  /** The end of the pattern: every group must have been closed. */
  finish(): void {
    this.concat();
    if (this.swapVerticalBar()) this.stack.pop();
    this.alternate();
    if (this.stack.length !== 1) throw fail('missing closing )', this.s);
  }

  /** Replaces the nodes above the topmost pseudo-operator by their concatenation. */
  private concat(): void {
    const stack = this.stack;
    let i = stack.length;
    while (i > 0 && !isPseudo(stack[i - 1]!)) i--;
    const subs = stack.splice(i) as Node[];
    if (subs.length === 0) this.push(this.node('empty'));
    else this.push(subs.length === 1 ? subs[0]! : this.node('concat', subs));
  }

  private alternate(): void {
    const stack = this.stack;
    let i = stack.length;
    while (i > 0 && !isPseudo(stack[i - 1]!)) i--;
    const subs = stack.splice(i) as Node[];
    if (subs.length === 0) this.push(this.node('leaf'));
    else this.push(subs.length === 1 ? subs[0]! : this.node('alt', subs));
  }

  private swapVerticalBar(): boolean {
    const stack = this.stack;
    const n = stack.length;
    if (n >= 3 && stack[n - 2]!.op === 'bar' && isCharClass(stack[n - 1]!) && isCharClass(stack[n - 3]!)) {
      stack[n - 3] = this.node('class'); // the two merge into one class
      stack.pop();
      return true;
    }
    if (n >= 2 && stack[n - 2]!.op === 'bar') {
      const top = stack[n - 1]!;
      stack[n - 1] = stack[n - 2]!;
      stack[n - 2] = top;
      return true;
    }
    return false;
  }

  /** A repetition operator s[before..after); returns the index after it (and its lazy `?`). */
  repeat(op: Node['op'], min: number, max: number, before: number, after: number, lastRepeat: number): number {
    const s = this.s;
    const stack = this.stack;
    if (s[after] === '?') after++;
    if (lastRepeat >= 0) throw fail('invalid nested repetition operator', s.slice(lastRepeat, after));
    const top = stack[stack.length - 1];
    if (top === undefined || isPseudo(top)) throw fail('missing argument to repetition operator', s.slice(before, after));
    const re = this.node(op, [top as Node], min, max);
    stack[stack.length - 1] = re;
    this.checkLimits(re);
    if (op === 'rep' && (min >= 2 || max >= 2) && !repeatIsValid(re, MAX_REPEAT)) {
      throw fail('invalid repeat count', s.slice(before, after));
    }
    return after;
  }
}

function repeatIsValid(re: Node, n: number): boolean {
  if (re.op === 'rep') {
    let m = re.max;
    if (m === 0) return true;
    if (m < 0) m = re.min;
    if (m > n) return false;
    if (m > 0) n = Math.trunc(n / m);
  }
  return re.subs.every((sub) => repeatIsValid(sub, n));
}
