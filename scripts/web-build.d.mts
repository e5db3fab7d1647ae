export const WEB_DIST: string;
export function isStale(): boolean;
export function build(): Promise<boolean>;
export function precompress(dir: string): Array<{ file: string; plain: number; compressed: number }>;
