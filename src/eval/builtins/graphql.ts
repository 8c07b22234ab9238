// graphql.* built-ins on graphql-js v16. Validation uses graphql-js's rules (close to
// gqlparser's, which OPA uses). ASTs are laid out like gqlparser's Go structs after OPA's
// pruning (Go field names; no Position; nulls dropped) for the common node kinds.

import type { ASTNode, DocumentNode, GraphQLSchema, TypeNode, ValueNode } from 'graphql';
import { registerBuiltins, type BuiltinImpl } from './registry.js';
import { builtinError, operandError } from './errors.js';
import { RegoEvalError } from '../errors.js';
import { lazyRequire } from './lazy-require.js';
import { isValid } from './is-valid.js';
import { newPlainObject, type PlainObject, type Value } from '../../value/index.js';

type V = Value | undefined;

// graphql-js is loaded on the first graphql.* call.
const graphql = lazyRequire<typeof import('graphql')>('graphql');

function obj(fields: Record<string, V>): PlainObject {
  const o = newPlainObject();
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v) && v.length === 0) continue;
    o[k] = v;
  }
  return o;
}

const VALUE_KIND: Record<string, number> = {
  Variable: 0, IntValue: 1, FloatValue: 2, StringValue: 3, BooleanValue: 5, NullValue: 6, EnumValue: 7, ListValue: 8, ObjectValue: 9,
};

function valueJSON(v: ValueNode | undefined): V {
  if (!v) return undefined;
  switch (v.kind) {
    case 'Variable':
      return obj({ Raw: v.name.value, Kind: 0 });
    case 'IntValue':
    case 'FloatValue':
    case 'EnumValue':
      return obj({ Raw: v.value, Kind: VALUE_KIND[v.kind] });
    case 'StringValue':
      return obj({ Raw: v.value, Kind: v.block ? 4 : 3 });
    case 'BooleanValue':
      return obj({ Raw: String(v.value), Kind: 5 });
    case 'NullValue':
      return obj({ Raw: 'null', Kind: 6 });
    case 'ListValue':
      return obj({ Children: v.values.map((x) => obj({ Name: '', Value: valueJSON(x) })), Kind: 8 });
    case 'ObjectValue':
      return obj({ Children: v.fields.map((f) => obj({ Name: f.name.value, Value: valueJSON(f.value) })), Kind: 9 });
  }
}

function typeJSON(t: TypeNode): PlainObject {
  if (t.kind === 'NonNullType') {
    const inner = typeJSON(t.type);
    inner.NonNull = true;
    return inner;
  }
  if (t.kind === 'ListType') return obj({ Elem: typeJSON(t.type), NonNull: false });
  return obj({ NamedType: t.name.value, NonNull: false });
}

const args = (a: readonly { name: { value: string }; value: ValueNode }[] | undefined): V =>
  a?.map((x) => obj({ Name: x.name.value, Value: valueJSON(x.value) }));
const directives = (d: readonly { name: { value: string }; arguments?: readonly { name: { value: string }; value: ValueNode }[] }[] | undefined): V =>
  d?.map((x) => obj({ Name: x.name.value, Arguments: args(x.arguments) }));

function selections(s: { selections: readonly ASTNode[] } | undefined): V {
  return s?.selections.map((n): Value => {
    switch (n.kind) {
      case 'Field':
        return obj({
          Alias: (n.alias ?? n.name).value,
          Name: n.name.value,
          Arguments: args(n.arguments),
          Directives: directives(n.directives),
          SelectionSet: selections(n.selectionSet),
        });
      case 'FragmentSpread':
        return obj({ Name: n.name.value, Directives: directives(n.directives) });
      case 'InlineFragment':
        return obj({
          TypeCondition: n.typeCondition?.name.value ?? '',
          Directives: directives(n.directives),
          SelectionSet: selections(n.selectionSet),
        });
      default:
        return null;
    }
  });
}

function queryJSON(doc: DocumentNode): PlainObject {
  const ops: Value[] = [];
  const frags: Value[] = [];
  for (const d of doc.definitions) {
    if (d.kind === 'OperationDefinition') {
      ops.push(
        obj({
          Operation: d.operation,
          Name: d.name?.value ?? '',
          VariableDefinitions: d.variableDefinitions?.map((v) =>
            obj({ Variable: v.variable.name.value, Type: typeJSON(v.type), DefaultValue: valueJSON(v.defaultValue), Directives: directives(v.directives) }),
          ),
          Directives: directives(d.directives),
          SelectionSet: selections(d.selectionSet),
        }),
      );
    } else if (d.kind === 'FragmentDefinition') {
      frags.push(obj({ Name: d.name.value, TypeCondition: d.typeCondition.name.value, Directives: directives(d.directives), SelectionSet: selections(d.selectionSet) }));
    }
  }
  return obj({ Operations: ops, Fragments: frags });
}

const KIND: Record<string, string> = {
  ObjectTypeDefinition: 'OBJECT', InterfaceTypeDefinition: 'INTERFACE', UnionTypeDefinition: 'UNION', EnumTypeDefinition: 'ENUM',
  InputObjectTypeDefinition: 'INPUT_OBJECT', ScalarTypeDefinition: 'SCALAR',
};

function schemaJSON(doc: DocumentNode): PlainObject {
  const defs: Value[] = [];
  const schema: Value[] = [];
  const dirs: Value[] = [];
  for (const d of doc.definitions) {
    if (d.kind === 'SchemaDefinition') {
      schema.push(obj({ OperationTypes: d.operationTypes.map((o) => obj({ Operation: o.operation, Type: o.type.name.value })) }));
    } else if (d.kind === 'DirectiveDefinition') {
      dirs.push(obj({ Name: d.name.value, Arguments: d.arguments?.map(fieldArg), Locations: d.locations.map((l) => l.value), IsRepeatable: d.repeatable }));
    } else if (KIND[d.kind]) {
      const t = d as Extract<ASTNode, { kind: 'ObjectTypeDefinition' }> & Record<string, unknown>;
      defs.push(
        obj({
          Kind: KIND[d.kind],
          Description: t.description?.value ?? '',
          Name: t.name.value,
          Directives: directives(t.directives),
          Interfaces: t.interfaces?.map((i) => i.name.value),
          Fields: (t.fields as readonly Record<string, never>[] | undefined)?.map((f) => fieldDef(f as never)),
          Types: (t.types as readonly { name: { value: string } }[] | undefined)?.map((x) => x.name.value),
          EnumValues: (t.values as readonly { name: { value: string }; description?: { value: string } }[] | undefined)?.map((e) =>
            obj({ Description: e.description?.value ?? '', Name: e.name.value }),
          ),
          BuiltIn: false,
        }),
      );
    }
  }
  return obj({ Schema: schema, Directives: dirs, Definitions: defs });
}

function fieldArg(a: { name: { value: string }; type: TypeNode; defaultValue?: ValueNode; description?: { value: string } }): Value {
  return obj({ Description: a.description?.value ?? '', Name: a.name.value, DefaultValue: valueJSON(a.defaultValue), Type: typeJSON(a.type) });
}

function fieldDef(f: { name: { value: string }; type: TypeNode; arguments?: readonly never[]; description?: { value: string }; defaultValue?: ValueNode; directives?: readonly never[] }): Value {
  return obj({
    Description: f.description?.value ?? '',
    Name: f.name.value,
    Arguments: f.arguments?.map(fieldArg),
    DefaultValue: valueJSON(f.defaultValue),
    Type: typeJSON(f.type),
    Directives: directives(f.directives),
  });
}

function gqlMessage(e: unknown): string {
  if (e instanceof graphql().GraphQLError) {
    const loc = e.locations?.[0];
    return loc ? `${e.message} in GraphQL string at location ${loc.line}:${loc.column}` : e.message;
  }
  return (e as Error).message;
}

function textArg(args: Value[], i: number): string {
  const v = args[i]!;
  if (typeof v === 'string') return v;
  throw operandError(i + 1, 'string', v);
}

/** Parses GraphQL text (a query or a schema); its syntax errors are the built-in's errors. */
function parseText(text: string): DocumentNode {
  try {
    return graphql().parse(text);
  } catch (e) {
    if (e instanceof graphql().GraphQLError) throw builtinError(gqlMessage(e));
    throw e;
  }
}

function loadSchema(text: string): { doc: DocumentNode; schema: GraphQLSchema } {
  const doc = graphql().parse(text);
  const schema = graphql().buildASTSchema(doc, { assumeValidSDL: false });
  const errs = graphql().validateSchema(schema);
  if (errs.length) throw errs[0];
  return { doc, schema };
}

/** Parses and validates; throws the first GraphQL error. */
function parseBoth(args: Value[]): [PlainObject, PlainObject] {
  const q = textArg(args, 0);
  const s = textArg(args, 1);
  let schema;
  try {
    schema = loadSchema(s);
  } catch (e) {
    throw builtinError(`${gqlMessage(e)}`);
  }
  let qdoc: DocumentNode;
  try {
    qdoc = graphql().parse(q);
  } catch (e) {
    throw builtinError(gqlMessage(e));
  }
  const errs = graphql().validate(schema.schema, qdoc);
  if (errs.length) throw builtinError(gqlMessage(errs[0]));
  return [queryJSON(qdoc), schemaJSON(schema.doc)];
}

const defs: BuiltinImpl[] = [
  {
    name: 'graphql.parse_query',
    fn: (a) => queryJSON(parseText(textArg(a, 0))),
  },
  {
    name: 'graphql.parse_schema',
    fn: (a) => schemaJSON(parseText(textArg(a, 0))),
  },
  {
    name: 'graphql.schema_is_valid',
    fn: isValid(loadSchema),
  },
  {
    name: 'graphql.is_valid',
    fn: isValid((query, schema) => parseBoth([query, schema])),
  },
  {
    name: 'graphql.parse',
    fn: (a) => parseBoth(a),
  },
  {
    name: 'graphql.parse_and_verify',
    fn: (a) => {
      try {
        const [q, s] = parseBoth(a);
        return [true, q, s];
      } catch (e) {
        if (e instanceof RegoEvalError) throw e;
        return [false, newPlainObject(), newPlainObject()];
      }
    },
  },
];

registerBuiltins(defs);
