// The pieces behind F9 and F12: the stderr tail's redaction (a secret cut at the buffer's start
// never shows a part of itself) and how the stdio transport finds the id of an over-size answer.
import { describe, expect, test } from "vitest";
import { StderrTail } from "../../src/mcp/stderr-tail.js";
import { responseId } from "../../src/mcp/stdio-transport.js";

describe("StderrTail", () => {
  test("redacts passed env values, secret-named process env values and NAME=value of secret names", () => {
    const tail = new StderrTail(
      { PLAIN: "value-passed-in" },
      { OPENAI_API_KEY: "sk-process-secret", HOME: "/home/me" },
    );
    tail.push("a value-passed-in b sk-process-secret c GITHUB_TOKEN=ghp_unknown d HOME=/home/me\n");
    expect(tail.text()).toBe("a [redacted] b [redacted] c GITHUB_TOKEN=[redacted] d HOME=/home/me");
  });

  test("a secret cut by the kept window never shows its end", () => {
    const secret = `S${"k".repeat(300)}END`;
    const tail = new StderrTail({ T: secret }, {});
    tail.push(`${"x".repeat(5_000)}${secret}${"y".repeat(2_000)}`);
    tail.push(`${secret}\u001b[31mred`);
    const text = tail.text();
    expect(text).not.toContain("kkkk");
    expect(text.endsWith("[redacted]\\x1b[31mred")).toBe(true); // control characters escaped
    expect(text.length).toBeLessThanOrEqual(510);
  });
});

describe("responseId", () => {
  test("the id of a response from its first or last bytes", () => {
    expect(responseId('{"result":{"content":[{"type":"text","text":"yyy', 'yyy"}]},"jsonrpc":"2.0","id":7}')).toBe(7);
    expect(responseId('{"jsonrpc":"2.0","id":"a-1","result":{"x":"', 'zz"}}')).toBe("a-1");
    expect(responseId('{"error":{"code":1,"message":"', '"},"jsonrpc":"2.0","id":3}\r')).toBe(3);
  });

  test("not a response (a request or notification), or no readable id: undefined", () => {
    expect(responseId('{"method":"notifications/message","params":{"data":"', 'zz"}}')).toBeUndefined();
    expect(responseId('{"method":"sampling/createMessage","params":{', '},"jsonrpc":"2.0","id":4}')).toBeUndefined();
    expect(responseId('{"result":{"text":"', 'yy"}}')).toBeUndefined();
  });
});
