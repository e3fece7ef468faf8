// The sandbox policy and its command line, pure: options checked (a bad one names the key),
// resolved against a workspace (`~` against the environment's HOME, Keelson's home hidden), the
// description a tool's definition carries, and the bubblewrap arguments in mount order.
import { describe, expect, test } from "vitest";
import {
  bwrapArguments,
  DEFAULT_HIDDEN_PATHS,
  describeSandbox,
  type PathKind,
  resolveSandbox,
  SandboxError,
  sandboxOptions,
} from "../../src/sandbox/index.js";

const env = { HOME: "/home/me", KEELSON_HOME: "/home/me/.local/share/keelson", PATH: "/usr/bin" };
const policyFor = (options?: Parameters<typeof resolveSandbox>[0], root = "/work/ws") =>
  resolveSandbox(options, { root, env });

describe("resolveSandbox", () => {
  test("defaults: workspace-write, no network, the default hidden paths and Keelson's home, 512 processes", () => {
    const policy = policyFor(undefined);
    expect(policy).toMatchObject({ mode: "workspace-write", network: "off", root: "/work/ws", maxProcesses: 512 });
    expect(policy.hiddenShown).toEqual([...DEFAULT_HIDDEN_PATHS, "~/.local/share/keelson"]);
    expect(policy.hidden).toContain("/home/me/.ssh");
    expect(Object.isFrozen(policy)).toBe(true);
  });

  test("a mode string is the mode; paths resolve against ~ and the workspace root", () => {
    expect(policyFor("read-only").mode).toBe("read-only");
    const policy = policyFor({ writable: ["~/.cache", "build", "/opt/x"], readable: ["../shared"] });
    expect(policy.writable).toEqual(["/home/me/.cache", "/work/ws/build", "/opt/x"]);
    expect(policy.readable).toEqual(["/work/shared"]);
  });

  test("a hidden path that holds the workspace or a shown path is not hidden", () => {
    const inHome = policyFor({ hidden: ["~", "~/.ssh", "/work"] }, "/home/me/project");
    expect(inHome.hidden).toEqual(["/home/me/.ssh", "/work"]);
    expect(policyFor({ hidden: ["~/.config"], readable: ["~/.config/tool"] }).hidden).toEqual([]);
    expect(policyFor({ hidden: ["/"] }).hidden).toEqual([]);
  });

  test("bwrap: the option, else this process's $KEELSON_BWRAP, else bwrap on the PATH", () => {
    const previous = process.env.KEELSON_BWRAP;
    try {
      delete process.env.KEELSON_BWRAP;
      expect(policyFor(undefined).bwrap).toBe("bwrap");
      process.env.KEELSON_BWRAP = "/opt/bwrap";
      expect(policyFor(undefined).bwrap).toBe("/opt/bwrap");
      expect(policyFor({ bwrap: "/x/bwrap" }).bwrap).toBe("/x/bwrap");
    } finally {
      if (previous === undefined) delete process.env.KEELSON_BWRAP;
      else process.env.KEELSON_BWRAP = previous;
    }
  });

  test.each([
    ["nope", /sandbox must be one of workspace-write, read-only, off \(got "nope"\)/],
    [{ mode: "all" }, /sandbox\.mode must be one of/],
    [{ network: true }, /sandbox\.network must be "on" or "off"/],
    [{ writable: "/x" }, /sandbox\.writable must be an array of non-empty paths/],
    [{ hidden: [""] }, /sandbox\.hidden must be an array/],
    [{ maxProcesses: 0 }, /sandbox\.maxProcesses must be a positive integer \(got 0\)/],
    [{ network: "off", netwrok: "on" }, /sandbox\.netwrok is not a sandbox option/],
    [[], /sandbox must be a mode/],
  ])("bad options are a SandboxError naming the key: %j", (options, message) => {
    const thrown = (() => {
      try {
        sandboxOptions(options);
      } catch (error) {
        return error;
      }
    })();
    expect(thrown).toBeInstanceOf(SandboxError);
    expect((thrown as SandboxError).code).toBe("invalid-options");
    expect((thrown as Error).message).toMatch(message);
  });
});

describe("describeSandbox", () => {
  test("says what may be written, what is hidden, the network and the process rules", () => {
    const text = describeSandbox(policyFor({ writable: ["/opt/cache"], hidden: ["~/.ssh"] }));
    expect(text).toBe(
      "Sandboxed (workspace-write): commands may write only under /work/ws (the workspace), /opt/cache and in a private /tmp (empty when each command starts); a .git or .keelson at the top of each stays read-only (git can read, not commit); the rest of the filesystem is read-only; hidden (a directory shows empty, a file cannot be read): ~/.ssh; no network (not even 127.0.0.1); Unix sockets cannot be opened; no new privileges (setuid is ignored); every process ends with the command; at most 512 processes.",
    );
  });

  test("read-only and network on say so; off says the command is not confined", () => {
    const readOnly = describeSandbox(policyFor({ mode: "read-only", network: "on", hidden: [] }));
    expect(readOnly).toContain("commands may write nowhere but a private /tmp");
    expect(readOnly).toContain("; the workspace and the rest of the filesystem is read-only");
    expect(readOnly).toContain("; the host's network;");
    expect(readOnly).not.toContain("hidden");
    expect(describeSandbox(policyFor("off"))).toBe(
      "Not sandboxed: commands run with the user's full access to files and network.",
    );
  });
});

describe("bwrapArguments", () => {
  const kinds = (entries: [string, PathKind][]) => new Map(entries);

  test("namespaces, then / read-only, fresh /dev and /proc, private /tmp, the workspace, then the hidden paths", () => {
    const policy = policyFor({ hidden: ["~/.ssh", "~/.netrc", "~/.aws"] });
    const args = bwrapArguments(
      policy,
      kinds([
        ["/home/me/.ssh", "directory"],
        ["/home/me/.netrc", "file"],
      ]),
      ["bash", "-c", "ls"],
    );
    expect(args.join(" ")).toBe(
      [
        "--unshare-all --unshare-user --cap-drop ALL --die-with-parent --new-session",
        "--ro-bind / / --dev /dev --proc /proc --tmpfs /tmp",
        "--bind /work/ws /work/ws",
        "--ro-bind-try /work/ws/.git /work/ws/.git --ro-bind-try /work/ws/.keelson /work/ws/.keelson",
        "--tmpfs /home/me/.ssh --remount-ro /home/me/.ssh --ro-bind /dev/null /home/me/.netrc",
        "--setenv TMPDIR /tmp --chdir /work/ws --seccomp 3 --json-status-fd 4 -- bash -c ls",
      ].join(" "),
    );
  });

  test("read-only binds the workspace read-only; network on shares the net; extras are bound if they exist, their .git and .keelson read-only", () => {
    const args = bwrapArguments(
      policyFor({ mode: "read-only", network: "on", writable: ["/opt/w"], readable: ["/tmp/r"], hidden: [] }),
      new Map(),
      ["true"],
    ).join(" ");
    expect(args).toContain("--unshare-all --unshare-user --share-net");
    expect(args).toContain(
      "--ro-bind /work/ws /work/ws --bind-try /opt/w /opt/w --ro-bind-try /opt/w/.git /opt/w/.git --ro-bind-try /opt/w/.keelson /opt/w/.keelson --ro-bind-try /tmp/r /tmp/r",
    );
  });

  test("the protections follow every bind (a writable parent of the workspace cannot cover them); a writable path inside one reopens it", () => {
    const parent = bwrapArguments(policyFor({ writable: ["/work"], hidden: [] }), new Map(), ["true"]).join(" ");
    expect(parent).toContain(
      "--bind /work/ws /work/ws --bind-try /work /work --ro-bind-try /work/ws/.git /work/ws/.git --ro-bind-try /work/ws/.keelson /work/ws/.keelson --ro-bind-try /work/.git /work/.git",
    );
    const opened = bwrapArguments(policyFor({ writable: [".git/objects"], hidden: [] }), new Map(), ["true"]).join(" ");
    expect(opened).toContain(
      "--ro-bind-try /work/ws/.git /work/ws/.git --ro-bind-try /work/ws/.keelson /work/ws/.keelson --ro-bind-try /work/ws/.git/objects/.git /work/ws/.git/objects/.git --ro-bind-try /work/ws/.git/objects/.keelson /work/ws/.git/objects/.keelson --bind-try /work/ws/.git/objects /work/ws/.git/objects --ro-bind-try /work/ws/.git/objects/.git",
    );
  });

  test("hidden paths under the private /tmp, or inside a hidden directory, need no mount", () => {
    const policy = policyFor({ hidden: ["~/.config/gh", "~/.config", "/tmp/secret", "/work/ws/.env"] });
    const args = bwrapArguments(
      policy,
      kinds([
        ["/home/me/.config", "directory"],
        ["/home/me/.config/gh", "directory"],
        ["/tmp/secret", "file"],
        ["/work/ws/.env", "file"],
      ]),
      ["true"],
    ).join(" ");
    expect(args).toContain("--tmpfs /home/me/.config --remount-ro /home/me/.config");
    expect(args).toContain("--ro-bind /dev/null /work/ws/.env"); // inside the workspace: still hidden
    expect(args).not.toContain("/home/me/.config/gh");
    expect(args).not.toContain("/tmp/secret");
  });
});
