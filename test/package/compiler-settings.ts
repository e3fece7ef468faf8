// The consumer compiler settings the package tests type-check a project under: each row is a
// whole tsc run over Keelson's declarations (package.test.ts runs them all, hello-world.test.ts one).
// Plain `strict` is not its own row: exactOptionalPropertyTypes and noUncheckedIndexedAccess only
// add errors, so the row with them covers it (each row is a whole tsc run over the declarations).
export const COMPILER_SETTINGS: Readonly<Record<string, object>> = {
  "strict + exactOptionalPropertyTypes, nodenext, skipLibCheck off": {
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    module: "nodenext",
    moduleResolution: "nodenext",
    target: "es2022",
    types: ["node"],
    noEmit: true,
    skipLibCheck: false,
  },
  "strict, bundler resolution, skipLibCheck off": {
    strict: true,
    module: "esnext",
    moduleResolution: "bundler",
    target: "es2022",
    types: ["node"],
    noEmit: true,
    skipLibCheck: false,
  },
  "not strict, nodenext": { module: "nodenext", target: "es2022", types: ["node"], noEmit: true },
};
