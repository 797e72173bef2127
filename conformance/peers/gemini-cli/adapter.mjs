#!/usr/bin/env node
// editref conformance adapter (protocol v1) for Gemini CLI's built-in file tools.
//
// One Node process serves the whole harness run. It imports @google/gemini-cli-core from
// $PEER_HOME and, for every case, builds a fresh Config the way the CLI does (targetDir and
// cwd = the sandbox, then initialize() and refreshAuth()), and on it fresh instances of the
// tools `replace` (EditTool), `write_file` (WriteFileTool) and `read_file` (ReadFileTool).
// Each corpus call becomes tool.build(params).execute(): the tool's own validation,
// matching and writing. The adapter only renames parameters and reshapes replies; it never
// touches the files itself.
//
// No model is ever contacted: the Config keeps the package's default
// disableLLMCorrection = true, so the Edit tool's LLM "self-correction" of a failed
// old_string and Write's LLM escaping fix are never attempted. refreshAuth() is given a
// placeholder Gemini API key only because WriteFileTool asks the Config for its LLM client
// object (without calling it) and the Config will not build one before auth.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";

// Protocol replies own stdout; anything the tool logs goes to stderr.
const out = process.stdout.write.bind(process.stdout);
for (const k of ["log", "info", "warn", "debug", "error", "trace"]) console[k] = (...a) => process.stderr.write(a.map(String).join(" ") + "\n");
process.stdout.write = (chunk, ...rest) => process.stderr.write(chunk, ...rest);

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

// The tool's home (~/.gemini: project registry, chat files) is a private temporary
// directory, never the sandbox and never the real home.
sweepOrphans("gemini-peer-");
const STATE = fs.mkdtempSync(path.join(os.tmpdir(), `gemini-peer-${process.pid}-`));
process.env.HOME = STATE;
process.env.GEMINI_API_KEY = "placeholder-no-network";

const PKG = path.join(process.env.PEER_HOME || "", "node_modules", "@google", "gemini-cli-core");
const VERSION = process.env.PEER_VERSION || "unknown";

const FEATURES = ["read", "edit", "write", "replace_all", "partial_read", "crlf", "symlink",
                  "root_confinement"];

let core = null;      // the imported package, once loaded
// Loading the package takes seconds; it starts at once and is awaited by the first case,
// so the handshake is answered without waiting for it.
const loading = import(path.join(PKG, "dist", "index.js")).then((m) => { core = m; })
  .catch((e) => process.stderr.write(`cannot load gemini-cli-core: ${e.stack || e}\n`));
let session = null;   // { config, tools } for the current case
let caseNo = 0;

// --- per-case session ------------------------------------------------------------------

async function newSession(sandbox) {
  caseNo += 1;
  const config = new core.Config({
    sessionId: `conform-${process.pid}-${caseNo}`,
    targetDir: sandbox,
    cwd: sandbox,
    model: core.DEFAULT_GEMINI_MODEL_AUTO,
    debugMode: false,
    interactive: false,
    usageStatisticsEnabled: false,
  });
  await config.initialize();
  await config.refreshAuth(core.AuthType.USE_GEMINI);
  if (config.getDisableLLMCorrection() !== true) throw new Error("LLM correction is enabled; refusing to run");
  const bus = config.getMessageBus();
  return {
    config,
    tools: {
      Edit: new core.EditTool(config, bus),
      Write: new core.WriteFileTool(config, bus),
      Read: new core.ReadFileTool(config, bus),
    },
  };
}

// --- parameter translation -------------------------------------------------------------

// The `replace` schema requires an `instruction` (the text its LLM fixer would be given).
// The corpus has none, so the tool's own fallback text is supplied.
const INSTRUCTION = "Apply the requested edit.";

function translateInput(tool, input) {
  const p = {};
  for (const [k, v] of Object.entries(input)) {
    if (tool === "Edit" && k === "replace_all") p.allow_multiple = v;
    else if (tool === "Read" && (k === "offset" || k === "limit")) continue;
    else p[k] = v; // unknown fields go on, so the tool's own schema judges them
  }
  if (tool === "Edit" && !("instruction" in p)) p.instruction = INSTRUCTION;
  if (tool === "Read") {
    // read_file pages by 1-based start_line / end_line (inclusive)
    const { offset, limit } = input;
    if (offset !== undefined) p.start_line = offset;
    if (limit !== undefined) p.end_line = (typeof offset === "number" ? offset : 1) + limit - 1;
  }
  return p;
}

// --- shaping replies -------------------------------------------------------------------

// Gemini's error types -> SPEC codes, where the meaning is the same.
const ERROR_CODES = {
  invalid_tool_params: "invalid_input",
  file_not_found: "file_not_found",
  target_is_directory: "is_directory",
  path_not_in_workspace: "outside_root",
  permission_denied: "permission_denied",
  file_too_large: "too_large",
  edit_no_occurrence_found: "not_found",
  edit_no_change: "no_change",
  attempt_to_create_existing_file: "file_exists",
};

// An OS error passed through in the tool's message ("EISDIR: illegal operation ...").
function osCode(message) {
  // Node refuses a path holding a NUL byte before any file system call
  if (/without null bytes/.test(String(message || ""))) return "invalid_path";
  const m = /\b(EISDIR|EACCES|EPERM|ENOENT|ENOTDIR)\b/.exec(String(message || ""));
  return m && { EISDIR: "is_directory", EACCES: "permission_denied", EPERM: "permission_denied",
                ENOENT: "file_not_found", ENOTDIR: "invalid_path" }[m[1]];
}

function errorFor(err) {
  const type = err?.type;
  let code = ERROR_CODES[type] || "io";
  // "expected 1 occurrence but found N": several hits without allow_multiple
  if (type === "edit_expected_occurrence_mismatch" && /found \d+/i.test(err.message || "")) code = "ambiguous";
  if (code === "io") code = osCode(err?.message) || code;
  const e = { code, message: err?.message || String(err), native_type: type };
  // the number of hits, as the tool's message states it
  const hits = /found (\d+)/i.exec(e.message);
  if (code === "ambiguous" && hits) e.count = Number(hits[1]);
  return e;
}

// read_file answers with the file's text (lines unnumbered); a partial read is preceded by
// a header "Status: Showing lines A-B of N total lines." and "--- FILE CONTENT (truncated) ---".
// The corpus wants each line shown as "N\ttext": the tool's lines are numbered, not changed.
function readOutput(result, filePath) {
  const c = result.llmContent;
  if (c && typeof c === "object" && c.inlineData) {
    const { mimeType, data } = c.inlineData;
    const type = mimeType === "application/pdf" ? "pdf" : mimeType.startsWith("image/") ? "image" : "other";
    const o = { type, base64: data, originalSize: Buffer.from(data, "base64").length };
    if (type === "image") o.mediaType = mimeType;
    return o;
  }
  let text = typeof c === "string" ? c : JSON.stringify(c);
  let startLine = 1, totalLines = null;
  const marker = "--- FILE CONTENT (truncated) ---\n";
  const head = text.match(/Showing lines (\d+)-(\d+) of (\d+) total lines/);
  if (head && text.includes(marker)) {
    startLine = Number(head[1]);
    totalLines = Number(head[3]);
    text = text.slice(text.indexOf(marker) + marker.length);
  }
  const lines = text === "" ? [] : text.split("\n");
  if (lines.length && lines[lines.length - 1] === "") lines.pop(); // a final newline ends a line
  return {
    type: "text",
    file: {
      filePath,
      content: lines.map((l, i) => `${startLine + i}\t${l}`).join("\n"),
      numLines: lines.length,
      startLine,
      // a whole-file read states no count: the lines it returned are the count
      totalLines: totalLines ?? lines.length,
    },
  };
}

function shapeOutput(tool, result, params) {
  if (tool === "Read") return readOutput(result, params.file_path);
  const d = result.returnDisplay;
  const diff = d && typeof d === "object" ? d.fileDiff : undefined;
  if (tool === "Write") {
    const created = d && typeof d === "object" ? d.isNewFile : undefined;
    // returnDisplay carries the bytes before (originalContent) and what was written (newContent)
    const o = { type: created ? "create" : "update", filePath: d?.filePath, diff, message: result.llmContent };
    if (d && typeof d === "object") {
      o.content = d.newContent;
      o.originalFile = created ? null : d.originalContent;
    }
    return o;
  }
  // Edit: the success text names the count ("... (N replacements).")
  const m = String(result.llmContent).match(/\((\d+) replacements?\)/);
  const o = { filePath: d?.filePath, diff, message: result.llmContent };
  if (m) o.replacements = Number(m[1]);
  return o;
}

async function call(tool, input) {
  if (!session?.tools[tool]) return { ok: false, error: { code: "invalid_input", message: `Gemini CLI has no ${tool} tool here` } };
  if (!input || typeof input !== "object" || Array.isArray(input)) {
    return { ok: false, error: { code: "invalid_input", message: "input must be an object" } };
  }
  const params = translateInput(tool, input);
  let invocation;
  try {
    invocation = session.tools[tool].build(params); // schema and path validation
  } catch (e) {
    const code = /not in workspace|outside the allowed workspace/i.test(e.message) ? "outside_root" : "invalid_input";
    return { ok: false, error: { code, message: e.message } };
  }
  const result = await invocation.execute({ abortSignal: new AbortController().signal });
  if (result.error) return { ok: false, error: errorFor(result.error) };
  return { ok: true, output: shapeOutput(tool, result, params) };
}

// --- protocol loop ---------------------------------------------------------------------

const send = (obj) => out(JSON.stringify(obj) + "\n");
const fail = (code, message) => ({ ok: false, error: { code, message } });

async function handle(msg) {
  switch (msg?.type) {
    case "hello":
      return send({ type: "hello", protocol: 1, features: FEATURES,
                    implementation: { name: "gemini-cli-core", version: VERSION } });
    case "case_start":
      session = null;
      try {
        await loading;
        session = await newSession(msg.sandbox);
      } catch (e) {
        process.stderr.write(`session setup failed: ${e.stack || e}\n`);
      }
      return send({ type: "ready" });
    case "call": {
      let res;
      try {
        res = session ? await call(msg.tool, msg.input) : fail("io", "the Gemini CLI session could not be set up (see stderr)");
      } catch (e) {
        res = fail("io", `${e?.code ? e.code + ": " : ""}${e?.message || e}`);
      }
      return send({ type: "result", seq: msg.seq, ...res });
    }
    case "case_end":
      session = null;
      return send({ type: "done" });
    case "bye":
      return quit();
    default:
      return send({ type: "result", seq: msg?.seq ?? null, ...fail("invalid_input", `unknown message type ${msg?.type}`) });
  }
}

function quit() {
  fs.rmSync(STATE, { recursive: true, force: true });
  process.exit(0);
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
      return send({ type: "result", seq: null, ...fail("invalid_input", `not JSON: ${e.message}`) });
    }
    await handle(msg);
  });
});
rl.on("close", () => queue.then(quit));
// A stray rejection inside the tool must not end the run.
process.on("unhandledRejection", (e) => process.stderr.write(`unhandled rejection: ${e?.stack || e}\n`));
