// The seccomp filter, run on a small classic-BPF interpreter over synthetic `seccomp_data`: what it
// refuses (socket(AF_UNIX), io_uring, new user namespaces, the keyring, other architectures) and
// what it lets through (other sockets, socketpair, plain clone/unshare, everything else). The
// kernel's own verdicts are exercised by the escape suite (test/reliability/sandbox.test.ts).
import { describe, expect, test } from "vitest";
import { SECCOMP_ARCHES, seccompFilter } from "../../src/sandbox/index.js";

const ALLOW = 0x7fff0000;
const EPERM = 0x00050001;
const ENOSYS = 0x00050026;
const KILL = 0x80000000;

/** Runs the program on (arch, nr, arg0); returns the action. Only the opcodes the filter uses. */
function run(program: Buffer, data: { arch: number; nr: number; arg0?: number }): number {
  const word = (offset: number): number => {
    if (offset === 0) return data.nr >>> 0;
    if (offset === 4) return data.arch >>> 0;
    if (offset === 16) return (data.arg0 ?? 0) >>> 0;
    throw new Error(`unexpected load at ${offset}`);
  };
  let acc = 0;
  for (let pc = 0; pc * 8 < program.length; pc++) {
    const code = program.readUInt16LE(pc * 8);
    const jt = program.readUInt8(pc * 8 + 2);
    const jf = program.readUInt8(pc * 8 + 3);
    const k = program.readUInt32LE(pc * 8 + 4);
    if (code === 0x20) acc = word(k);
    else if (code === 0x06) return k;
    else if (code === 0x15) pc += acc === k ? jt : jf;
    else if (code === 0x35) pc += acc >= k ? jt : jf;
    else if (code === 0x45) pc += (acc & k) !== 0 ? jt : jf;
    else throw new Error(`unexpected opcode ${code.toString(16)}`);
  }
  throw new Error("fell off the end of the program");
}

const X64 = 0xc000003e;
const ARM64 = 0xc00000b7;
const I386 = 0x40000003;

describe("seccompFilter", () => {
  test("exists for x64 and arm64 only", () => {
    expect(SECCOMP_ARCHES).toEqual(["x64", "arm64"]);
    expect(seccompFilter("ia32")).toBeUndefined();
    expect(seccompFilter("x64")!.length % 8).toBe(0);
  });

  const cases: [string, number, number, number, number | undefined, number][] = [
    ["socket(AF_UNIX)", X64, 41, 1, undefined, EPERM],
    ["socket(AF_INET)", X64, 41, 2, undefined, ALLOW],
    ["socket(AF_INET6)", X64, 41, 10, undefined, ALLOW],
    ["socketpair(AF_UNIX)", X64, 53, 1, undefined, ALLOW],
    ["io_uring_setup", X64, 425, 0, undefined, EPERM],
    ["io_uring_enter", X64, 426, 0, undefined, EPERM],
    ["io_uring_register", X64, 427, 0, undefined, EPERM],
    ["clone(CLONE_NEWUSER)", X64, 56, 0x10000000 | 0x11, undefined, EPERM],
    ["clone (fork)", X64, 56, 0x01200011, undefined, ALLOW],
    ["unshare(CLONE_NEWUSER|CLONE_NEWNS)", X64, 272, 0x10020000, undefined, EPERM],
    ["unshare(CLONE_NEWNS)", X64, 272, 0x00020000, undefined, ALLOW],
    ["clone3", X64, 435, 0, undefined, ENOSYS],
    ["keyctl", X64, 250, 0, undefined, EPERM],
    ["add_key", X64, 248, 0, undefined, EPERM],
    ["read", X64, 0, 3, undefined, ALLOW],
    ["an x32 system call", X64, 0x40000000 + 41, 1, undefined, EPERM],
    ["an i386 system call", I386, 102, 1, undefined, KILL],
  ];
  test.each(cases)("x64: %s", (_name, arch, nr, arg0, _unused, expected) => {
    expect(run(seccompFilter("x64")!, { arch, nr, arg0 })).toBe(expected);
  });

  test.each([
    ["socket(AF_UNIX)", 198, 1, EPERM],
    ["socket(AF_INET)", 198, 2, ALLOW],
    ["clone(CLONE_NEWUSER)", 220, 0x10000000, EPERM],
    ["unshare(CLONE_NEWUSER)", 97, 0x10000000, EPERM],
    ["clone3", 435, 0, ENOSYS],
    ["keyctl", 219, 0, EPERM],
    ["io_uring_setup", 425, 0, EPERM],
    ["openat", 56, 0, ALLOW],
  ])("arm64: %s", (_name, nr, arg0, expected) => {
    expect(run(seccompFilter("arm64")!, { arch: ARM64, nr, arg0 })).toBe(expected);
  });

  test("arm64's filter refuses x64's calls and the other way round", () => {
    expect(run(seccompFilter("arm64")!, { arch: X64, nr: 0 })).toBe(KILL);
    expect(run(seccompFilter("x64")!, { arch: ARM64, nr: 0 })).toBe(KILL);
  });
});
