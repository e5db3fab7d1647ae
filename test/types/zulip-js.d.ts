// zulip-js ships no types; tests use it as the real client would, untyped.
declare module 'zulip-js' {
  const zulip: (config: Record<string, unknown>) => Promise<any>;
  export default zulip;
}
