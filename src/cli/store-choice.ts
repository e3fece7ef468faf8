// The `--store` value of the command being run, recorded by main.ts before its action, and the
// spec in force (that, else $KEELSON_STORE). No imports: main.ts loads this for every command,
// so `keelson --help` stays the command table alone (store-target.ts opens the store).

let chosen: string | undefined;

/** Records the `--store` value of the command being run (main.ts, before its action). */
export function chooseStore(spec: string | undefined): void {
  chosen = spec === "" ? undefined : spec;
}

/** The store spec in force: `--store`, else $KEELSON_STORE, else undefined (the default JSONL store). */
export function storeSpec(): string | undefined {
  return chosen ?? (process.env.KEELSON_STORE || undefined);
}
