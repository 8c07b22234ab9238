// How a subcommand is declared: one file under commands/ holds its arguments, flags, help
// and code, and ends with `export default command({...}).action(fn)`; commands/index.ts
// lists it by name with a loader, so the file (and what it imports) is loaded only when
// that subcommand runs. Flags are values (`Flag<O>`): the shared ones come from flags.ts,
// a command's own ones from `opt(...)`, and the options object the action receives is
// typed from them (`Options`), never declared again by hand.

import type { Command } from 'commander';
import { examples as examplesText } from './io.js';

/** One flag (or a group of flags) a command accepts; `O` is what it adds to the options object. */
export interface Flag<O extends object = object> {
  readonly apply: (cmd: Command) => void;
  /** Type only: the options this flag contributes. */
  readonly options?: O;
}

// ---- the options object's type, read from the flag text as commander does ----------------

type Camel<S extends string> = S extends `${infer H}-${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S;
type LongName<S extends string> = S extends `${string}--${infer R}` ? (R extends `${infer N} ${string}` ? N : R) : never;
/** `-f, --fail-defined` -> `failDefined`; `--no-check-result` -> `checkResult`. */
export type FlagKey<S extends string> = LongName<S> extends `no-${infer N}` ? Camel<N> : Camel<LongName<S>>;
type Negated<S extends string> = LongName<S> extends `no-${string}` ? true : false;
/** The value commander stores: `<v>` a string, `[v]` a string or true, none a boolean. */
type FlagValue<S extends string> = S extends `${string}<${string}>${string}` ? string : S extends `${string}[${string}]${string}` ? string | true : boolean;

type OptionalOf<S extends string, V> = { [K in FlagKey<S>]?: V };
type RequiredOf<S extends string, V> = { [K in FlagKey<S>]: V };

/** A command's own flag: the arguments of commander's `.option()`, with the options type derived. */
export function opt<const S extends string>(flags: S, description: string): Flag<Negated<S> extends true ? RequiredOf<S, boolean> : OptionalOf<S, FlagValue<S>>>;
export function opt<const S extends string, const D extends string | boolean>(flags: S, description: string, defaultValue: D): Flag<RequiredOf<S, FlagValue<S> | D>>;
export function opt<const S extends string, T>(flags: S, description: string, parse: (value: string, previous: T) => T, defaultValue: T): Flag<RequiredOf<S, T>>;
export function opt(flags: string, description: string, ...rest: unknown[]): Flag {
  return { apply: (cmd) => void (cmd.option as (...a: unknown[]) => Command)(flags, description, ...rest) };
}

/** Several flags that travel together (OPA's flag helpers that add more than one). */
export function group<const F extends readonly Flag[]>(...flags: F): Flag<Options<F>> {
  return { apply: (cmd) => flags.forEach((f) => f.apply(cmd)) };
}

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
type Simplify<T> = { [K in keyof T]: T[K] } & {};
/** The options object an action receives for these flags. */
export type Options<F extends readonly Flag[]> = Simplify<UnionToIntersection<{ [I in keyof F]: F[I] extends Flag<infer O> ? O : never }[number]> & object>;

// ---- positional arguments -----------------------------------------------------------------

/** `['<query>', 'description']`: commander's argument syntax (`<x>` required, `[x]` optional, `...` variadic). */
export type Arg = readonly [syntax: string, description: string];
type ArgValue<S extends string> = S extends `${string}...${string}` ? string[] : S extends `<${string}` ? string : string | undefined;
type ArgValues<A extends readonly Arg[]> = { -readonly [I in keyof A]: ArgValue<A[I][0]> };

// ---- the declaration --------------------------------------------------------------------

export interface CommandSpec<A extends readonly Arg[], F extends readonly Flag[]> {
  name: string;
  description: string;
  hidden?: boolean;
  args?: A;
  flags?: F;
  /** Usage examples printed after the options by --help ('' for a blank line). */
  examples?: string[];
}

export type Action<A extends readonly Arg[], F extends readonly Flag[]> = (...args: [...ArgValues<A>, Options<F>]) => unknown;

/** A declared subcommand, ready for the program (commands/index.ts lists it). */
export interface Subcommand {
  readonly name: string;
  /** Adds the subcommand to `program` and returns it. */
  readonly register: (program: Command) => Command;
}

export interface Declared<A extends readonly Arg[], F extends readonly Flag[]> {
  /** Attaches the code that runs the subcommand. */
  action(fn: Action<A, F>): Subcommand;
}

/** Declares a subcommand; `.action(fn)` completes it. */
export function command<const A extends readonly Arg[] = [], const F extends readonly Flag[] = []>(spec: CommandSpec<A, F>): Declared<A, F> {
  return {
    action: (fn) => ({
      name: spec.name,
      register(program) {
        const cmd = program.command(spec.name, spec.hidden ? { hidden: true } : {}).description(spec.description);
        for (const [syntax, description] of spec.args ?? []) cmd.argument(syntax, description);
        for (const f of spec.flags ?? []) f.apply(cmd);
        if (spec.examples) cmd.addHelpText('after', examplesText(spec.examples));
        // commander passes the arguments, the options and the command; the action takes the first two.
        return cmd.action(async (...received: unknown[]) => {
          await (fn as (...a: unknown[]) => unknown)(...received.slice(0, -1));
        });
      },
    }),
  };
}

/** The options type of a declared subcommand, for helpers that take the whole object. */
export type OptionsOf<D> = D extends Declared<readonly Arg[], infer F> ? Options<F> : never;
