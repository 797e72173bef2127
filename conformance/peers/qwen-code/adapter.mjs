#!/usr/bin/env node
// editref conformance adapter (protocol v1) for Qwen Code's built-in file tools.
//
// Qwen Code ships as one esbuild bundle (@qwen-code/qwen-code) whose chunk files carry
// content hashes in their names. At start the adapter reads the `export { ... }` list at
// the end of every chunk and imports the chunks that export `Config`, `EditTool`,
// `WriteFileTool` and `ReadFileTool`, so no hashed file name is written down anywhere.
//
// One Node process serves the whole harness run. For every case it builds a fresh Config
// (targetDir and cwd = the sandbox, then initialize(), as the CLI does) and on it fresh
// instances of the tools `edit`, `write_file` and `read_file`; each corpus call becomes
// tool.build(params).execute(signal): the tool's own validation, read-before-write
// bookkeeping (kept on the Config, so it lasts exactly one case), matching and writing.
// The adapter only renames parameters and reshapes replies; it never touches the files.
//
// No model is configured and none is contacted: Qwen's edit and write tools have no
// LLM-based correction step.

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

// The tool's home (~/.qwen: settings, extensions, session files) is a private temporary
// directory, never the sandbox and never the real home.
sweepOrphans("qwen-peer-");
const STATE = fs.mkdtempSync(path.join(os.tmpdir(), `qwen-peer-${process.pid}-`));
process.env.HOME = STATE;

const PKG = path.join(process.env.PEER_HOME || "", "node_modules", "@qwen-code", "qwen-code");
const VERSION = process.env.PEER_VERSION || "unknown";

const FEATURES = ["read", "edit", "write", "replace_all", "read_before_write", "partial_read",
                  "stale_detection", "crlf", "utf8_bom", "utf16le", "utf16be", "legacy_encoding",
                  "curly_quotes", "symlink"];

// --- finding the classes in the bundle -------------------------------------------------

const WANTED = ["Config", "EditTool", "WriteFileTool", "ReadFileTool"];

// Returns { name: module file } for the WANTED names, taking the smallest chunk that
// exports each (the small entry chunks only re-export the class).
function locateExports(dir) {
  const found = {};
  for (const f of fs.readdirSync(dir).filter((f) => f.endsWith(".js"))) {
    const text = fs.readFileSync(path.join(dir, f), "utf8");
    const list = [...text.matchAll(/^export \{([^}]*)\};?$/gm)].pop();
    if (!list) continue;
    const names = list[1].split(",").map((s) => s.trim().split(/\s+as\s+/).pop());
    for (const w of WANTED) {
      if (names.includes(w) && (!found[w] || text.length < found[w].size)) {
        found[w] = { file: path.join(dir, f), size: text.length };
      }
    }
  }
  const missing = WANTED.filter((w) => !found[w]);
  if (missing.length) throw new Error(`no chunk of the bundle exports ${missing.join(", ")}`);
  return found;
}

let Q = null; // { Config, EditTool, WriteFileTool, ReadFileTool }
// Loading the bundle takes seconds; it starts at once and is awaited by the first case,
// so the handshake is answered without waiting for it.
const loading = (async () => {
  const where = locateExports(path.join(PKG, "chunks"));
  const mods = {};
  for (const w of WANTED) mods[w] = (await import(where[w].file))[w];
  Q = mods;
})().catch((e) => process.stderr.write(`cannot load qwen-code: ${e.stack || e}\n`));

// --- per-case session ------------------------------------------------------------------

let session = null;
let caseNo = 0;

async function newSession(sandbox) {
  caseNo += 1;
  const config = new Q.Config({
    sessionId: `conform-${process.pid}-${caseNo}`,
    targetDir: sandbox,
    cwd: sandbox,
    debugMode: false,
    interactive: false,
    usageStatisticsEnabled: false,
  });
  await config.initialize();
  return {
    config,
    tools: {
      Edit: new Q.EditTool(config),
      Write: new Q.WriteFileTool(config),
      Read: new Q.ReadFileTool(config),
    },
  };
}

// --- parameter translation -------------------------------------------------------------

// Edit and Write take the corpus's own names (file_path, old_string, new_string,
// replace_all, content). read_file's `offset` counts lines from 0 ("lines offset+1 ..."),
// the corpus's from 1, so a positive offset is shifted down by one; 0 (which the corpus
// reads as line 1) and anything else go on as given, for the tool to judge. `limit` is
// the same in both.
function translateInput(tool, input) {
  const p = { ...input }; // unknown fields go on, so the tool's own schema judges them
  if (tool === "Read" && Number.isInteger(input.offset) && input.offset >= 1) p.offset = input.offset - 1;
  return p;
}

// --- shaping replies -------------------------------------------------------------------

// Qwen's error types -> SPEC codes, where the meaning is the same.
const ERROR_CODES = {
  invalid_tool_params: "invalid_input",
  file_not_found: "file_not_found",
  target_is_directory: "is_directory",
  permission_denied: "permission_denied",
  file_too_large: "too_large",
  edit_no_occurrence_found: "not_found",
  edit_no_change: "no_change",
  attempt_to_create_existing_file: "file_exists",
  file_changed_since_read: "stale",
  edit_requires_prior_read: "not_read",
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
  const msg = err?.message || String(err);
  // "Expected 1 occurrence but found N": several hits without replace_all
  if (type === "edit_expected_occurrence_mismatch" && /found \d+/i.test(msg)) code = "ambiguous";
  // the read tool's refusal of a FIFO, device or other special file
  if (type === "read_content_failure" && /^Not a regular file/.test(msg)) code = "not_regular_file";
  // edit_requires_prior_read is also used for FIFOs/devices and for non-text payloads
  if (type === "edit_requires_prior_read" && !/has not been read/.test(msg)) code = "io";
  // the prior-read check's refusal of a FIFO, socket or device
  if (type === "edit_requires_prior_read" && /is a FIFO \/ socket \/ character or block device/.test(msg)) code = "not_regular_file";
  if (code === "io") code = osCode(msg) || code;
  const e = { code, message: msg, native_type: type };
  // the number of hits, as the tool's message states it
  const hits = /found (\d+)/i.exec(msg);
  if (code === "ambiguous" && hits) e.count = Number(hits[1]);
  return e;
}

// read_file answers with the file's text, lines unnumbered; a partial read is preceded by
// "Showing lines A-B of N total lines.\n\n---\n\n". A repeated full read of an unchanged file
// answers "[File ... unchanged since last read ...]". The corpus wants each line shown as
// "N\ttext": the tool's lines are numbered, not changed; counts are the tool's own.
function readOutput(result, filePath) {
  const c = result.llmContent;
  const part = Array.isArray(c) ? c.find((x) => x?.inlineData) : c;
  if (part && typeof part === "object" && part.inlineData) {
    const { mimeType, data } = part.inlineData;
    const type = mimeType === "application/pdf" ? "pdf" : mimeType.startsWith("image/") ? "image" : "other";
    const o = { type, base64: data, originalSize: Buffer.from(data, "base64").length };
    if (type === "image") o.mediaType = mimeType;
    return o;
  }
  let text = typeof c === "string" ? c : JSON.stringify(c);
  if (/^\[File .* unchanged since last read in this session/.test(text)) return { type: "file_unchanged", message: text };
  let startLine = 1, totalLines = null;
  const head = text.match(/^Showing lines (\d+)-(\d+) of (?:at least )?(\d+) total lines\.\n\n---\n\n/);
  if (head) {
    startLine = Number(head[1]);
    totalLines = Number(head[3]);
    text = text.slice(head[0].length);
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
  const d = result.returnDisplay && typeof result.returnDisplay === "object" ? result.returnDisplay : null;
  const o = { filePath: d?.filePath, diff: d?.fileDiff, message: result.llmContent };
  if (tool === "Write") {
    // returnDisplay carries the bytes before (originalContent) and what was written
    const created = /created and wrote to new file/i.test(String(result.llmContent));
    o.type = created ? "create" : "update";
    if (d) {
      o.content = d.newContent;
      o.originalFile = created ? null : d.originalContent;
    }
  }
  return o;
}

async function call(tool, input) {
  if (!session?.tools[tool]) return { ok: false, error: { code: "invalid_input", message: `Qwen Code has no ${tool} tool here` } };
  if (!input || typeof input !== "object" || Array.isArray(input)) {
    return { ok: false, error: { code: "invalid_input", message: "input must be an object" } };
  }
  const params = translateInput(tool, input);
  let invocation;
  try {
    invocation = session.tools[tool].build(params); // schema and path validation
  } catch (e) {
    return { ok: false, error: { code: "invalid_input", message: e.message } };
  }
  const result = await invocation.execute(new AbortController().signal);
  if (result.error) return { ok: false, error: errorFor(result.error) };
  return { ok: true, output: shapeOutput(tool, result, params) };
}

// --- protocol loop ---------------------------------------------------------------------

const send = (obj) => out(JSON.stringify(obj) + "\n");
const fail = (code, message) => ({ ok: false, error: { code, message } });

async function endSession() {
  const s = session;
  session = null;
  try {
    await s?.config?.shutdown?.();
  } catch (e) {
    process.stderr.write(`shutdown: ${e?.message || e}\n`);
  }
}

async function handle(msg) {
  switch (msg?.type) {
    case "hello":
      return send({ type: "hello", protocol: 1, features: FEATURES,
                    implementation: { name: "qwen-code", version: VERSION } });
    case "case_start":
      await endSession();
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
        res = session ? await call(msg.tool, msg.input) : fail("io", "the Qwen Code session could not be set up (see stderr)");
      } catch (e) {
        res = fail("io", `${e?.code ? e.code + ": " : ""}${e?.message || e}`);
      }
      return send({ type: "result", seq: msg.seq, ...res });
    }
    case "case_end":
      await endSession();
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
