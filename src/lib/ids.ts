/** Ids are 32-bit integer columns; PostgreSQL refuses to compare them with anything wider. */
export const fitsIdColumn = (n: number): boolean => Number.isSafeInteger(n) && n >= -2147483648 && n <= 2147483647;
