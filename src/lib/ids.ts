/** The largest id a column holds: ids are 32-bit integer columns (PostgreSQL's integer). */
export const MAX_ID = 2_147_483_647;

/** Ids are 32-bit integer columns; PostgreSQL refuses to compare them with anything wider. */
export const fitsIdColumn = (n: number): boolean => Number.isSafeInteger(n) && n >= -MAX_ID - 1 && n <= MAX_ID;

/** An id a row could have (ids start at 1): anything else names nothing and need not be looked up. */
export const isPossibleId = (n: number): boolean => Number.isSafeInteger(n) && n >= 1 && n <= MAX_ID;
