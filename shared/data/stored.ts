import type { InferRawDocType, ResolveSchemaOptions } from 'mongoose';

/**
 * The type of a stored document, derived from its schema's definition and options: a field is
 * written once, in the definition. Each path is typed as mongoose infers it (`InferRawDocType`,
 * with `_id` and the timestamps: a path that is not required and has no default but null is
 * optional and may hold null), except the paths declared with {@link typed}, which hold exactly
 * their type.
 */
export type DocOf<Fields, Options> = Flat<
  Omit<InferRawDocType<Fields, ResolveSchemaOptions<Options>>, TypedPaths<Fields>> & {
    -readonly [K in keyof Fields as K extends TypedPaths<Fields> ? (undefined extends TypeOf<Fields[K]> ? never : K) : never]: TypeOf<
      Fields[K]
    >;
  } & {
    -readonly [K in keyof Fields as K extends TypedPaths<Fields> ? (undefined extends TypeOf<Fields[K]> ? K : never) : never]?: Exclude<
      TypeOf<Fields[K]>,
      undefined
    >;
  }
>;

declare const storedAs: unique symbol;

/**
 * A path whose values say more than its schema type does (a Mixed path, a nested shape, values the
 * writers check): its definition, unchanged at run time, with the type `T` its values have in
 * {@link DocOf} — `| undefined` when a document may lack it, `| null` when it may hold null.
 */
export const typed =
  <T>() =>
  <P extends object>(path: P) =>
    path as P & { readonly [storedAs]: T };

type TypeOf<P> = P extends { readonly [storedAs]: infer T } ? T : never;
type TypedPaths<Fields> = { [K in keyof Fields]: typeof storedAs extends keyof Fields[K] ? K : never }[keyof Fields];
type Flat<T> = { [K in keyof T]: T[K] };

/**
 * The record a repository returns for a stored document — derived from the document's type
 * ({@link DocOf}), never written twice: `_id` becomes `id` (a string), the references named in
 * `Refs` (ObjectIds, or another document's string id) become `<name>Id` strings (a nullable one
 * stays nullable), an optional field becomes present-or-null, and the fields in `Drop` (internal
 * to the store) are left out. A record that reshapes a field for its callers drops it here and
 * declares its new form beside, where its repository's mapping fills it in.
 */
export type RecordOf<D, Refs extends keyof D = never, Drop extends keyof D = never> = { id: string } & {
  -readonly [K in Exclude<keyof D, '_id' | Drop> as K extends Refs ? `${K & string}Id` : K]-?: K extends Refs
    ? null extends D[K]
      ? string | null
      : string
    : Exclude<D[K], undefined> | (undefined extends D[K] ? null : never);
};
