/** src-main/fresh-build.mjs: whether a build's file is at least as new as every source. */
export declare const SOURCE_ROOTS: readonly string[];
export declare function newestSourceMs(root: string): number;
export declare function isFreshBuild(file: string, root: string): boolean;
