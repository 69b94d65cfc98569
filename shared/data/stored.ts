/**
 * The record a repository returns for a stored document — derived from the document's one
 * declaration (`*.schema.ts`), never written twice: `_id` becomes `id` (a string), the ObjectId
 * references named in `Refs` become `<name>Id` strings (a nullable one stays nullable), an optional
 * field becomes present-or-null, and the fields in `Drop` (internal to the store) are left out.
 */
export type RecordOf<D, Refs extends keyof D = never, Drop extends keyof D = never> = { id: string } & {
  -readonly [K in Exclude<keyof D, '_id' | Drop> as K extends Refs ? `${K & string}Id` : K]-?: K extends Refs
    ? null extends D[K]
      ? string | null
      : string
    : Exclude<D[K], undefined> | (undefined extends D[K] ? null : never);
};
