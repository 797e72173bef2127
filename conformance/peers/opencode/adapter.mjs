#!/usr/bin/env node
// editref conformance adapter (protocol v1) for OpenCode's built-in file tools.
//
// Every tool call runs OpenCode's own tool code, once, in a fresh process:
//
//   opencode debug agent build --pure --tool <edit|write|read> --params '<json>'
//
// with the case's sandbox as working directory and a private HOME / XDG_* tree per case
// (made at case_start, removed at case_end), so no config, database or log leaks from one
// case into the next. On success the command prints {"tool","input","result"} as JSON on
// stdout; on failure it exits non-zero and prints "Error: ..." and the tool's message on
// stderr. This file only translates parameter names and the shape of the reply: it never
// touches the files itself.

import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";

const HOME = process.env.PEER_HOME || "";
const BIN = path.join(HOME, "node_modules", ".bin", "opencode");
const VERSION = process.env.PEER_VERSION || "unknown";
// Each call starts the whole OpenCode runtime (1-7 s here); a call that takes longer than
// this is killed and answered with an `io` error.
const CALL_LIMIT_MS = 50_000;

// What OpenCode's tools do (see README.md for the reasons behind each).
const FEATURES = ["read", "edit", "write", "replace_all", "partial_read", "crlf", "utf8_bom",
                  "symlink"];

// Temporary homes are named <prefix><pid>-XXXXXX. One whose adapter was killed (the harness
// kills an adapter that timed out) is removed by the next adapter that starts.
function sweepOrphans(prefix) {
  let names = [];
  try { names = fs.readdirSync(os.tmpdir()); } catch {}
  for (const name of names) {
    const m = name.startsWith(prefix) && /^(\d+)-/.exec(name.slice(prefix.length));
    if (!m) continue;
    try {
      process.kill(Number(m[1]), 0); // still running: not an orphan
    } catch (e) {
      if (e.code === "ESRCH") fs.rmSync(path.join(os.tmpdir(), name), { recursive: true, force: true });
    }
  }
}
sweepOrphans("opencode-peer-");

let sandbox = null; // the current case's sandbox
let state = null;   // the current case's private HOME / XDG directory

// --- parameter translation -------------------------------------------------------------

// Corpus (Claude Code) spelling -> OpenCode spelling. Fields not listed are passed on
// unchanged, so OpenCode's own schema validation judges unknown or misspelt fields.
const RENAMES = {
  Edit: { file_path: "filePath", old_string: "oldString", new_string: "newString",
          replace_all: "replaceAll" },
  Write: { file_path: "filePath" },
  Read: { file_path: "filePath" },
};
const TOOL_IDS = { Edit: "edit", Write: "write", Read: "read" };

function translateInput(tool, input) {
  const out = {};
  for (const [k, v] of Object.entries(input)) out[RENAMES[tool][k] || k] = v;
  return out;
}

// --- running the tool ------------------------------------------------------------------

function runOpencode(toolId, params) {
  return new Promise((resolve) => {
    const env = { ...process.env, HOME: state, XDG_CONFIG_HOME: path.join(state, "config"),
                  XDG_DATA_HOME: path.join(state, "data"), XDG_CACHE_HOME: path.join(state, "cache"),
                  XDG_STATE_HOME: path.join(state, "state"), NO_COLOR: "1" };
    const argv = ["debug", "agent", "build", "--pure", "--tool", toolId,
                  "--params", JSON.stringify(params)];
    // The child's stdout and stderr go to files, not pipes: OpenCode can exit before a
    // large reply has drained through a pipe, which would cut the JSON short.
    const outPath = path.join(state, "stdout"), errPath = path.join(state, "stderr");
    let child, outFd, errFd;
    const finish = (code, signal, extra = "") => {
      for (const fd of [outFd, errFd]) if (fd !== undefined) try { fs.closeSync(fd); } catch {}
      const slurp = (p) => { try { return fs.readFileSync(p, "utf8"); } catch { return ""; } };
      resolve({ code, signal, stdout: slurp(outPath), stderr: slurp(errPath) + extra });
    };
    try {
      outFd = fs.openSync(outPath, "w");
      errFd = fs.openSync(errPath, "w");
      child = spawn(BIN, argv, { cwd: sandbox, env, stdio: ["ignore", outFd, errFd] });
    } catch (e) {
      return finish(-1, null, String(e));
    }
    const timer = setTimeout(() => child.kill("SIGKILL"), CALL_LIMIT_MS);
    let spawnError = "";
    child.on("error", (e) => { spawnError = String(e); });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      finish(code ?? -1, signal, spawnError);
    });
  });
}

// The tool's message: stderr without colours and without the CLI's "Error: ..." banner.
function toolMessage(stderr) {
  const plain = stderr.replace(/\x1b\[[0-9;]*m/g, "").trim();
  return plain.replace(/^Error: Unexpected error\s*/, "").trim() || "opencode failed without a message";
}

// OpenCode's refusals are plain Error messages; map the ones whose meaning is unambiguous.
const MESSAGE_CODES = [
  [/^No changes to apply: oldString and newString are identical/, "no_change"],
  [/^Could not find oldString in the file/, "not_found"],
  [/^Found multiple matches for oldString/, "ambiguous"],
  [/^oldString cannot be empty when editing an existing file/, "file_exists"],
  [/^File .* not found$|^File not found: /m, "file_not_found"],
  [/^Path is a directory, not a file/, "is_directory"],
  [/^Cannot read binary file/, "binary"],
  // a Read offset past the last line is refused by OpenCode: a bad parameter value
  [/^Offset \d+ is out of range/, "invalid_input"],
  [/^filePath is required/, "invalid_input"],
  [/must be a string, Uint8Array, or URL without null bytes/, "invalid_path"],
  [/EACCES|EPERM|permission denied/i, "permission_denied"],
  [/ENOENT/, "file_not_found"],
  [/EISDIR/, "is_directory"],
  [/Expected |is missing|Missing key|InvalidParams|invalid_type|SchemaError|ParseError/i, "invalid_input"],
];

function errorFor(message) {
  for (const [re, code] of MESSAGE_CODES) if (re.test(message)) return { code, message };
  return { code: "io", message };
}

// --- shaping replies -------------------------------------------------------------------

// Read: OpenCode numbers lines as "N: text"; the corpus wants "N\ttext". The line texts are
// taken from the tool's own metadata.display (the lines it returned), unchanged.
function readOutput(result) {
  const d = result?.metadata?.display;
  const att = result?.attachments?.[0];
  if (att && typeof att.url === "string" && att.url.startsWith("data:")) {
    // an image or PDF: OpenCode attaches it as a data: URL; split it into the corpus fields
    const [head, base64] = att.url.slice(5).split(",", 2);
    const mediaType = head.replace(/;base64$/, "");
    const type = mediaType === "application/pdf" ? "pdf" : "image";
    const out = { type, base64, originalSize: Buffer.from(base64, "base64").length };
    if (type === "image") out.mediaType = mediaType;
    return out;
  }
  if (!d || d.type !== "file") {
    // a directory listing: passed through as the tool answered it
    return { type: d?.type || "other", native: result };
  }
  const count = Math.max(0, (d.lineEnd ?? 0) - (d.lineStart ?? 1) + 1);
  const lines = count > 0 ? String(d.text ?? "").split("\n").slice(0, count) : [];
  return {
    type: "text",
    file: {
      filePath: d.path,
      content: lines.map((l, i) => `${d.lineStart + i}\t${l}`).join("\n"),
      numLines: lines.length,
      startLine: d.lineStart ?? 1,
      totalLines: d.totalLines,
    },
  };
}

function shapeOutput(tool, result) {
  if (tool === "Read") return readOutput(result);
  if (tool === "Edit") {
    // OpenCode reports neither a replacement count nor repairs; only what it does report
    // is passed on.
    return { filePath: result?.metadata?.filediff?.file, diff: result?.metadata?.diff,
             message: result?.output };
  }
  // Write: metadata.exists says whether the file was there before.
  return { type: result?.metadata?.exists ? "update" : "create",
           filePath: result?.metadata?.filepath, message: result?.output };
}

async function call(tool, input) {
  if (!TOOL_IDS[tool]) return { ok: false, error: { code: "invalid_input", message: `OpenCode has no ${tool} tool` } };
  if (!input || typeof input !== "object" || Array.isArray(input)) {
    return { ok: false, error: { code: "invalid_input", message: "input must be an object" } };
  }
  const run = await runOpencode(TOOL_IDS[tool], translateInput(tool, input));
  if (run.code !== 0) {
    if (run.signal) return { ok: false, error: { code: "io", message: `opencode killed by ${run.signal}` } };
    return { ok: false, error: errorFor(toolMessage(run.stderr)) };
  }
  let parsed;
  try {
    parsed = JSON.parse(run.stdout);
  } catch {
    return { ok: false, error: { code: "io", message: `unreadable opencode output: ${run.stdout.slice(0, 500)}` } };
  }
  return { ok: true, output: shapeOutput(tool, parsed.result) };
}

// --- protocol loop ---------------------------------------------------------------------

function send(obj) {
  process.stdout.write(JSON.stringify(obj) + "\n");
}

function endCase() {
  if (state) fs.rmSync(state, { recursive: true, force: true });
  state = null;
}

async function handle(msg) {
  switch (msg?.type) {
    case "hello":
      return send({ type: "hello", protocol: 1, features: FEATURES,
                    implementation: { name: "opencode", version: VERSION } });
    case "case_start":
      endCase();
      sandbox = msg.sandbox;
      state = fs.mkdtempSync(path.join(os.tmpdir(), `opencode-peer-${process.pid}-`));
      return send({ type: "ready" });
    case "call": {
      let res;
      try {
        res = await call(msg.tool, msg.input);
      } catch (e) {
        res = { ok: false, error: { code: "io", message: `adapter: ${e?.message || e}` } };
      }
      return send({ type: "result", seq: msg.seq, ...res });
    }
    case "case_end":
      endCase();
      return send({ type: "done" });
    case "bye":
      endCase();
      process.exit(0);
    default:
      return send({ type: "result", seq: msg?.seq ?? null, ok: false,
                    error: { code: "invalid_input", message: `unknown message type ${msg?.type}` } });
  }
}

// Messages are handled strictly one after another.
const rl = readline.createInterface({ input: process.stdin });
let queue = Promise.resolve();
rl.on("line", (line) => {
  queue = queue.then(async () => {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch (e) {
      return send({ type: "result", seq: null, ok: false,
                    error: { code: "invalid_input", message: `not JSON: ${e.message}` } });
    }
    await handle(msg);
  });
});
rl.on("close", () => queue.then(() => { endCase(); process.exit(0); }));
