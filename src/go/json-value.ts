/** The values every Go port here produces and reads: what Go's encoding/json decodes into `any`. */

/** A JSON value as Go's encoding/json decodes it into `any`. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject
/** A JSON object; key order is irrelevant (hashing sorts keys). */
export interface JsonObject {
  [key: string]: JsonValue
}
