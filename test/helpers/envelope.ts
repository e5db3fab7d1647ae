/** An envelope as tests read it: any field of any event, without narrowing the union first. */
export interface EventEnvelope {
  realmId: number;
  userIds: number[];
  event: Record<string, any> & { type: string };
}
