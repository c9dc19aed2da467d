/**
 * Sent by the replay upstream with a 404 that means "nothing recorded for this request" (not a
 * recorded 404): the offline demo's upstream client turns it into a plain "no recording" answer
 * (src/upstream/client.ts). Its own module so the client does not import the replay server.
 */
export const REPLAY_MISS_HEADER = "x-replay-miss";
