export const WEB_DIST: string;
export function isStale(): boolean;
export function build(): Promise<boolean>;
