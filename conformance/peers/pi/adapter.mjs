// editref conformance adapter (protocol v1) for pi's file tools.
//
// Drives the installed @mariozechner/pi-coding-agent's own `read`, `edit` and `write` tools,
// exactly as pi's agent loop does: the tool's `prepareArguments`, then pi-ai's
// `validateToolArguments` against the tool's schema, then `execute`. Every case gets fresh
// tools whose working directory is the sandbox. Nothing the tool answers or writes is repaired;
// the adapter only renames parameters and turns pi's replies and error messages into the
// shapes and codes of SPEC.md §12-13.
//
// Stdout carries protocol replies only; anything else goes to stderr.

import { createInterface } from "node:readline";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const HOME = process.env.PEER_HOME;
if (!HOME) {
  process.stderr.write("pi adapter: PEER_HOME is not set\n");
  process.exit(2);
}
const MODULES = join(HOME, "node_modules", "@mariozechner");
// The tools module and the validator, imported directly: the package's index pulls in the
// whole agent (TUI, providers), which only slows every adapter start.
const tools = await import(
  pathToFileURL(join(MODULES, "pi-coding-agent", "dist", "core", "tools", "index.js")).href
);
const { validateToolArguments } = await import(
  pathToFileURL(join(MODULES, "pi-ai", "dist", "utils", "validation.js")).href
);

const VERSION = "0.73.1";
const FEATURES = [
  "read", "edit", "multi_edit", "write",
  "crlf",          // matches on an LF view of a CRLF file and writes CRLF back
  "utf8_bom",      // strips a UTF-8 BOM before matching and puts it back
  "curly_quotes",  // its fuzzy pass folds curly quotes (and dashes, spaces) to ASCII
  "partial_read",  // Read takes offset/limit
  "symlink",       // writes go through the link to its target (writeFile in place)
  "posix_mode",    // the file is rewritten in place, so its mode stays
];

let session = null; // { cwd, read, edit, write } — new for every case

// --- translation of calls -----------------------------------------------------------------

// Copies `inp` with the renames given in `names` (canonical -> pi). Keys it does not know are
// passed on unchanged, so pi's own schema (additionalProperties: false) judges them.
function rename(inp, names, drop = []) {
  const out = {};
  for (const [k, v] of Object.entries(inp)) {
    if (drop.includes(k)) continue;
    out[k in names ? names[k] : k] = v;
  }
  return out;
}

function isPlainObject(x) {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

// pi has no replace_all; a call asking for it cannot be expressed.
function refuseReplaceAll(flag) {
  if (flag !== undefined && flag !== null && flag !== false) {
    throw failure("invalid_input", "pi's edit tool has no replace_all: every oldText must be unique");
  }
}

function translate(tool, inp) {
  if (!isPlainObject(inp)) throw failure("invalid_input", "input must be an object");
  switch (tool) {
    case "Read":
      return ["read", rename(inp, { file_path: "path" })];
    case "Write":
      return ["write", rename(inp, { file_path: "path" })];
    case "Edit": {
      refuseReplaceAll(inp.replace_all);
      const { file_path, old_string, new_string, replace_all, ...rest } = inp;
      const args = { ...rest, path: file_path, edits: [{ oldText: old_string, newText: new_string }] };
      if (file_path === undefined) delete args.path;
      return ["edit", args];
    }
    case "MultiEdit": {
      const { file_path, edits, ...rest } = inp;
      let piEdits = edits;
      if (Array.isArray(edits)) {
        piEdits = edits.map((e) => {
          if (!isPlainObject(e)) return e;
          refuseReplaceAll(e.replace_all);
          return rename(e, { old_string: "oldText", new_string: "newText" }, ["replace_all"]);
        });
      }
      const args = { ...rest, path: file_path, edits: piEdits };
      if (file_path === undefined) delete args.path;
      return ["edit", args];
    }
    default:
      throw failure("invalid_input", `pi has no tool for ${tool}`);
  }
}

// --- running pi's tool, as its agent loop does ----------------------------------------------

async function runPi(name, args) {
  const tool = session[name];
  const prepared = tool.prepareArguments ? tool.prepareArguments(args) : args;
  let validated;
  try {
    validated = validateToolArguments(tool, { type: "toolCall", id: "call", name, arguments: prepared });
  } catch (err) {
    throw failure("invalid_input", String(err?.message ?? err));
  }
  return tool.execute("call", validated, undefined, undefined);
}

function textOf(result) {
  return (result?.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
}

async function call(tool, inp) {
  const [name, args] = translate(tool, inp);
  const filePath = typeof inp.file_path === "string" ? inp.file_path : undefined;
  if (name === "write") {
    // `type` comes from whether the path (followed through links) existed before the call;
    // pi itself only says "Successfully wrote N bytes".
    const existed = filePath !== undefined && existsSync(resolve(session.cwd, filePath));
    const result = await runPi(name, args);
    const out = { type: existed ? "update" : "create", filePath, content: inp.content, message: textOf(result) };
    if (!existed) Object.assign(out, { structuredPatch: [], originalFile: null });
    return out;
  }
  const result = await runPi(name, args);
  if (name === "read") {
    const image = (result.content ?? []).find((c) => c.type === "image");
    if (image) return { type: "image", base64: image.data, mediaType: image.mimeType, message: textOf(result) };
    // pi shows the lines as they are, without line numbers; its text is passed on verbatim.
    return { type: "text", file: { filePath, content: textOf(result) } };
  }
  // edit: pi guarantees each oldText matched exactly once.
  const out = { filePath, diff: result.details?.diff, message: textOf(result) };
  if (tool === "Edit") {
    Object.assign(out, { oldString: inp.old_string, newString: inp.new_string, replaceAll: false, replacements: 1 });
  } else {
    out.edits = inp.edits.map((e) => ({ oldString: e.old_string, newString: e.new_string, replaceAll: false, replacements: 1 }));
  }
  return out;
}

// --- pi's errors -> SPEC codes ---------------------------------------------------------------

function failure(code, message, fields = {}) {
  const err = new Error(message);
  err.spec = { code, message, ...fields };
  return err;
}

const OS_CODES = {
  ENOENT: "file_not_found", ENOTDIR: "file_not_found", EISDIR: "is_directory",
  EACCES: "permission_denied", EPERM: "permission_denied",
};

function errorFor(err) {
  if (err?.spec) return err.spec;
  const message = String(err?.message ?? err);
  let m;
  // Node refuses a path with a NUL byte before any system call.
  if (/ERR_INVALID_ARG_VALUE/.test(`${err?.code} ${message}`) && /null bytes/.test(message))
    return { code: "invalid_path", message };
  if (err?.code && OS_CODES[err.code]) return { code: OS_CODES[err.code], message };
  if ((m = message.match(/Error code: (E[A-Z]+)/)) && OS_CODES[m[1]]) return { code: OS_CODES[m[1]], message };
  if ((m = message.match(/^Could not find edits\[(\d+)\]/))) return { code: "not_found", message, edit_index: +m[1] };
  if (message.startsWith("Could not find the exact text")) return { code: "not_found", message };
  if ((m = message.match(/^Found (\d+) occurrences of edits\[(\d+)\]/)))
    return { code: "ambiguous", message, count: +m[1], edit_index: +m[2] };
  if ((m = message.match(/^Found (\d+) occurrences/))) return { code: "ambiguous", message, count: +m[1] };
  if (message.startsWith("No changes made")) return { code: "no_change", message };
  // Empty oldText, overlapping edits, an offset past the end: pi refuses the input itself.
  if (/oldText must not be empty|overlap in|is beyond end of file|edits must contain/.test(message))
    return { code: "invalid_input", message };
  return { code: "io", message };
}

// --- protocol loop ----------------------------------------------------------------------------

function send(obj) {
  process.stdout.write(JSON.stringify(obj) + "\n");
}

async function handle(msg) {
  switch (msg?.type) {
    case "hello":
      // pi's read shows lines without numbers: Read is judged in that form.
      return send({ type: "hello", protocol: 1, implementation: { name: "pi", version: VERSION },
        features: FEATURES, read_format: "plain" });
    case "case_start": {
      try {
        process.chdir(msg.sandbox);
      } catch (err) {
        return send({ type: "result", seq: null, ok: false, error: { code: "io", message: String(err) } });
      }
      const cwd = msg.sandbox;
      session = { cwd, read: tools.createReadTool(cwd), edit: tools.createEditTool(cwd), write: tools.createWriteTool(cwd) };
      return send({ type: "ready" });
    }
    case "call": {
      if (!session) return send({ type: "result", seq: msg.seq, ok: false, error: { code: "io", message: "no case started" } });
      try {
        const output = await call(msg.tool, msg.input);
        return send({ type: "result", seq: msg.seq, ok: true, output });
      } catch (err) {
        return send({ type: "result", seq: msg.seq, ok: false, error: errorFor(err) });
      }
    }
    case "case_end":
      session = null;
      return send({ type: "done" });
    case "bye":
      process.exit(0);
    default:
      return send({ type: "result", seq: msg?.seq ?? null, ok: false, error: { code: "invalid_input", message: `unknown message type ${msg?.type}` } });
  }
}

// One request at a time, in order: each reply is written before the next line is read.
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (err) {
    send({ type: "result", seq: null, ok: false, error: { code: "invalid_input", message: `not JSON: ${err.message}` } });
    continue;
  }
  try {
    await handle(msg);
  } catch (err) {
    send({ type: "result", seq: msg?.seq ?? null, ok: false, error: { code: "io", message: `adapter error: ${err?.message ?? err}` } });
  }
}
process.exit(0);
