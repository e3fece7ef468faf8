export declare function keelsonHome(env?: NodeJS.ProcessEnv): string;
export declare function defaultSessionsDir(env?: NodeJS.ProcessEnv): string;
