/** The number of builds `packages --history` reads without --since (apart from history.ts, so help stays light). */
export const DEFAULT_HISTORY_LIMIT = 100;
