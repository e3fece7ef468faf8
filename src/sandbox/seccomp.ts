// The seccomp filter bubblewrap loads (`--seccomp FD`) before it runs a sandboxed command: a
// classic-BPF program over `struct seccomp_data` that refuses what a read-only bind mount and an
// empty network namespace cannot stop on their own —
//   - socket(AF_UNIX, …): connecting to a Unix socket needs no write access to the mount it lies
//     on, so a read-only `/` would still let a command talk to /run/docker.sock, an ssh-agent or
//     a database socket of the host (socketpair(), which reaches nothing, stays allowed);
//   - io_uring: its requests create sockets without the socket() system call;
//   - a new user namespace (clone/unshare with CLONE_NEWUSER; clone3, whose flags a filter cannot
//     read, answers ENOSYS so libc falls back to clone): inside one a command holds capabilities
//     over a copy of its mounts — the confinement must not be undoable from inside;
//   - the kernel keyring (add_key, request_key, keyctl): keys are per user, not per sandbox.
// Any other architecture's system calls (i386 through int 0x80, x32) are refused: their numbers
// differ and socketcall() would hide the address family. Pure: bytes out.

/** `struct sock_filter` opcodes. */
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;

const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const RET_KILL_PROCESS = 0x80000000;
const EPERM = 1;
const ENOSYS = 38;

const AF_UNIX = 1;
const CLONE_NEWUSER = 0x10000000;
const X32_SYSCALL_BIT = 0x40000000;

/** `struct seccomp_data` offsets: nr, arch, then (after the instruction pointer) args[0]'s low word. */
const NR = 0;
const ARCH = 4;
const ARG0 = 16;

interface Table {
  readonly audit: number;
  readonly socket: number;
  readonly clone: number;
  readonly unshare: number;
  readonly denied: readonly number[];
  readonly x32: boolean;
}

/** System call numbers; io_uring (425–427) and clone3 (435) share the generic numbering. */
const TABLES: Readonly<Record<string, Table>> = {
  x64: {
    audit: 0xc000003e,
    socket: 41,
    clone: 56,
    unshare: 272,
    denied: [425, 426, 427, 248, 249, 250], // io_uring_setup/enter/register, add_key, request_key, keyctl
    x32: true,
  },
  arm64: {
    audit: 0xc00000b7,
    socket: 198,
    clone: 220,
    unshare: 97,
    denied: [425, 426, 427, 217, 218, 219],
    x32: false,
  },
};
const CLONE3 = 435;

/** The architectures the filter exists for (`process.arch` names). */
export const SECCOMP_ARCHES: readonly string[] = Object.freeze(Object.keys(TABLES));

/** One instruction; `label` names it as a jump target, `yes`/`no` name the targets when the test holds or not (default: the next one). */
type Step = { readonly label?: string } & (
  | { readonly op: "load"; readonly offset: number }
  | { readonly op: "jump"; readonly code: number; readonly k: number; readonly yes: string; readonly no?: string }
  | { readonly op: "return"; readonly value: number }
);

const built = new Map<string, Buffer>();

/** The filter for `arch` (`process.arch`) as bytes for `bwrap --seccomp`, or undefined for an unknown arch. */
export function seccompFilter(arch: string = process.arch): Buffer | undefined {
  let filter = built.get(arch);
  if (filter === undefined && TABLES[arch] !== undefined) {
    filter = assemble(TABLES[arch]);
    built.set(arch, filter);
  }
  return filter === undefined ? undefined : Buffer.from(filter); // a copy: the caller may hand it on
}

function assemble(t: Table): Buffer {
  const steps: Step[] = [
    { op: "load", offset: ARCH },
    { op: "jump", code: JEQ_K, k: t.audit, yes: "load-nr", no: "kill" },
    { op: "load", offset: NR, label: "load-nr" },
    ...(t.x32 ? [{ op: "jump", code: JGE_K, k: X32_SYSCALL_BIT, yes: "eperm" } as const] : []),
    { op: "jump", code: JEQ_K, k: t.socket, yes: "socket" },
    { op: "jump", code: JEQ_K, k: t.clone, yes: "flags" },
    { op: "jump", code: JEQ_K, k: t.unshare, yes: "flags" },
    { op: "jump", code: JEQ_K, k: CLONE3, yes: "enosys" },
    ...t.denied.map((nr) => ({ op: "jump", code: JEQ_K, k: nr, yes: "eperm" }) as const),
    { op: "return", value: RET_ALLOW },
    { op: "load", offset: ARG0, label: "socket" },
    { op: "jump", code: JEQ_K, k: AF_UNIX, yes: "eperm", no: "allow" },
    { op: "load", offset: ARG0, label: "flags" },
    { op: "jump", code: JSET_K, k: CLONE_NEWUSER, yes: "eperm", no: "allow" },
    { op: "return", value: RET_ERRNO | EPERM, label: "eperm" },
    { op: "return", value: RET_ERRNO | ENOSYS, label: "enosys" },
    { op: "return", value: RET_ALLOW, label: "allow" },
    { op: "return", value: RET_KILL_PROCESS, label: "kill" },
  ];
  const labels = new Map(steps.flatMap((s, i) => (s.label === undefined ? [] : [[s.label, i] as const])));
  const offset = (from: number, label: string | undefined): number => {
    if (label === undefined) return 0;
    const to = labels.get(label);
    if (to === undefined || to <= from || to - from - 1 > 255) throw new Error(`seccomp: bad jump to ${label}`);
    return to - from - 1;
  };
  const out = Buffer.alloc(steps.length * 8);
  steps.forEach((s, i) => {
    const at = i * 8;
    if (s.op === "load") {
      out.writeUInt16LE(LD_W_ABS, at);
      out.writeUInt32LE(s.offset, at + 4);
    } else if (s.op === "jump") {
      out.writeUInt16LE(s.code, at);
      out.writeUInt8(offset(i, s.yes), at + 2);
      out.writeUInt8(offset(i, s.no), at + 3);
      out.writeUInt32LE(s.k >>> 0, at + 4);
    } else {
      out.writeUInt16LE(RET_K, at);
      out.writeUInt32LE(s.value >>> 0, at + 4);
    }
  });
  return out;
}
