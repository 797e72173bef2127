// `editref mcp` driven by the official TypeScript MCP SDK (@modelcontextprotocol/sdk), over
// stdio and over streamable HTTP.
//
// Usage: node ts_client_test.mjs PATH_TO_EDITREF NODE_MODULES_DIR
//
// NODE_MODULES_DIR is where the pinned SDK is installed (tests/mcp.rs installs it). The SDK's
// Client checks every structuredContent it is given against the tool's outputSchema, and
// throws when it does not match: so each successful call here also checks that editref's
// results match their schemas, and each refusal that the client gets it as a result it can
// read (isError, the stable code), not as an exception. The last line is "N passed, N failed";
// the exit status is 0 only when every check passed.

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { once } from 'node:events';

const [editrefArg, nodeModules] = process.argv.slice(2);
if (!editrefArg || !nodeModules) {
  console.error('usage: node ts_client_test.mjs PATH_TO_EDITREF NODE_MODULES_DIR');
  process.exit(2);
}
const editref = resolve(editrefArg);
const sdkDir = join(resolve(nodeModules), '@modelcontextprotocol', 'sdk');
const sdk = (path) => import(pathToFileURL(join(sdkDir, 'dist', 'esm', path)).href);
const { Client } = await sdk('client/index.js');
const { StdioClientTransport, getDefaultEnvironment } = await sdk('client/stdio.js');
const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');
const SDK_VERSION = JSON.parse(readFileSync(join(sdkDir, 'package.json'), 'utf8')).version;

const TOOLS = ['Read', 'Edit', 'MultiEdit', 'Write', 'NotebookEdit', 'Undo'];
const REQUIRED = {
  Read: ['file_path'],
  Edit: ['file_path', 'old_string', 'new_string'],
  MultiEdit: ['file_path', 'edits'],
  Write: ['file_path', 'content'],
  NotebookEdit: ['notebook_path'],
  Undo: ['file_path'],
};

function expect(cond, what) {
  if (!cond) throw new Error(what);
}

function equal(got, want, what) {
  const [g, w] = [JSON.stringify(got), JSON.stringify(want)];
  if (g !== w) throw new Error(`${what}: got ${g}, want ${w}`);
}

function sameBytes(path, want, what) {
  const got = readFileSync(path);
  if (!got.equals(Buffer.from(want))) {
    throw new Error(`${what}: ${path} holds ${JSON.stringify(got.toString('latin1'))}`);
  }
}

function noTempFiles(dir) {
  const left = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name.includes('.editref-') && e.name.endsWith('.tmp')) left.push(join(d, e.name));
    }
  };
  walk(dir);
  equal(left, [], 'temp files left');
}

const textOf = (r) => r.content.filter((c) => c.type === 'text').map((c) => c.text).join('');

function ok(result, what) {
  expect(!result.isError, `${what} was refused: ${textOf(result)}`);
  return result;
}

/**
 * A refusal as a client sees it (SPEC MCP-3): a result, not an exception — the SDK checked its
 * structuredContent against the tool's outputSchema and let it through — with isError, the
 * code in the text and the error object as structuredContent.
 */
function refused(result, code, what) {
  expect(result.isError === true, `${what} should be refused with ${code}: ${textOf(result)}`);
  expect(textOf(result).startsWith(`refused (${code}): `), `${what}: text ${textOf(result)}`);
  equal(result.structuredContent?.error?.code, code, `${what}: structured code`);
  expect(typeof result.structuredContent.error.message === 'string', `${what}: message`);
  return result;
}

// --- transports ---------------------------------------------------------------------------

/** A connected client over stdio: `editref mcp --no-fsync ARGS`, started in `cwd`. */
async function stdioClient(cwd, args) {
  const transport = new StdioClientTransport({
    command: editref,
    args: ['mcp', '--no-fsync', ...args],
    cwd,
    // The SDK passes only a few variables; the state directory keeps the undo journals (UNDO-7)
    // out of the home of whoever runs this.
    env: { ...getDefaultEnvironment(), XDG_STATE_HOME: process.env.XDG_STATE_HOME },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'editref-ts-test', version: '1' });
  await client.connect(transport);
  return { client, close: () => client.close() };
}

/** A connected client over streamable HTTP to `editref mcp --http 127.0.0.1:0 ARGS`. */
async function httpClient(cwd, args) {
  const server = spawn(editref, ['mcp', '--no-fsync', '--http', '127.0.0.1:0', ...args], {
    cwd,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`no address announced: ${seen}`)), 30000);
    server.stderr.on('data', (chunk) => {
      seen += chunk;
      const m = seen.match(/listening on (\S+)\r?\n/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    server.on('error', reject);
    server.on('exit', (code) => reject(new Error(`server exited (${code}): ${seen}`)));
  });
  const client = new Client({ name: 'editref-ts-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return {
    client,
    close: async () => {
      await client.close();
      const exited = once(server, 'exit');
      server.kill('SIGINT');
      await exited;
    },
  };
}

const TRANSPORTS = { stdio: stdioClient, http: httpClient };

// --- the checks ---------------------------------------------------------------------------

const CHECKS = [];
const check = (name, fn) => CHECKS.push({ name, fn });

check('lists the tools with schemas and hints', async (dir, connect) => {
  const { client, close } = await connect(dir, []);
  try {
    const { tools } = await client.listTools();
    equal(tools.map((t) => t.name), TOOLS, 'tool names');
    for (const t of tools) {
      equal(t.inputSchema.type, 'object', `${t.name} inputSchema type`);
      equal(t.inputSchema.required, REQUIRED[t.name], `${t.name} required`);
      equal(t.outputSchema?.type, 'object', `${t.name} outputSchema type`);
      expect(t.title && t.description, `${t.name} has a title and a description`);
      equal(t.annotations.readOnlyHint, t.name === 'Read', `${t.name} readOnlyHint`);
      equal(t.annotations.idempotentHint, t.name === 'Read', `${t.name} idempotentHint`);
      equal(t.annotations.destructiveHint, t.name === 'Write', `${t.name} destructiveHint`);
      equal(t.annotations.openWorldHint, false, `${t.name} openWorldHint`);
    }
    const edit = tools.find((t) => t.name === 'Edit');
    expect(edit.description.includes('unique'), "Edit's description states the rules");
    for (const t of tools) {
      // The tool's result, or a refusal's {"error": ...} (SPEC MCP-3).
      const [, refusal] = t.outputSchema.anyOf;
      equal(refusal.required, ['error'], `${t.name}: the refusal branch`);
    }
    expect('oneOf' in tools[0].outputSchema.anyOf[0], "Read's outputSchema keeps its variants");
  } finally {
    await close();
  }
});

check('reads then edits a CRLF file, byte for byte', async (dir, connect) => {
  const f = join(dir, 'crlf.txt');
  writeFileSync(f, 'one\r\ntwo\r\nthree\r\n');
  const { client, close } = await connect(dir, ['--root', dir]);
  try {
    await client.listTools(); // the SDK validates each structuredContent from here on
    let r = ok(await client.callTool({ name: 'Read', arguments: { file_path: 'crlf.txt' } }), 'Read');
    equal(r.structuredContent.type, 'text', 'Read result type');
    expect(textOf(r).includes('2\ttwo'), `Read shows numbered lines: ${textOf(r)}`);
    r = ok(
      await client.callTool({
        name: 'Edit',
        arguments: { file_path: 'crlf.txt', old_string: 'two\nthree', new_string: '2\n3' },
      }),
      'Edit',
    );
    expect(textOf(r).startsWith('Replaced 1 occurrence in '), `summary: ${textOf(r)}`);
    expect(textOf(r).includes('-two') && textOf(r).includes('+2'), 'the diff is shown');
    equal(r.structuredContent.replacements, 1, 'structured replacements');
    // Pi's list of edits sent to Edit (ALIAS-6) answers as MultiEdit, which Edit's outputSchema
    // admits: the client takes the result.
    r = ok(
      await client.callTool({
        name: 'Edit',
        arguments: { path: 'crlf.txt', edits: [{ oldText: 'one', newText: '1' }, { oldText: '3', newText: 'three' }] },
      }),
      "Edit with Pi's list of edits",
    );
    expect(textOf(r).startsWith('Applied 2 edits (2 replacements) to '), `summary: ${textOf(r)}`);
    equal(r.structuredContent.edits.length, 2, 'one summary per edit');
    r = ok(
      await client.callTool({ name: 'Write', arguments: { file_path: 'new.txt', content: 'x\r\n' } }),
      'Write',
    );
    equal(r.structuredContent.type, 'create', 'Write result type');
  } finally {
    await close();
  }
  sameBytes(f, '1\r\n2\r\nthree\r\n', 'the edited file');
  sameBytes(join(dir, 'new.txt'), 'x\r\n', 'the written file');
  noTempFiles(dir);
});

check('refusals are results the client reads, never exceptions', async (dir, connect) => {
  const root = join(dir, 'project');
  mkdirSync(root);
  writeFileSync(join(dir, 'secret.txt'), 'secret\n');
  const unread = join(root, 'unread.txt');
  const twice = join(root, 'twice.txt');
  writeFileSync(unread, 'keep\r\n');
  writeFileSync(twice, 'x = 1\nx = 1\n');
  const { client, close } = await connect(root, ['--root', root]);
  try {
    await client.listTools();
    const call = (name, args) => client.callTool({ name, arguments: args });
    refused(
      await call('Edit', { file_path: 'unread.txt', old_string: 'keep', new_string: 'gone' }),
      'not_read',
      'Edit before a Read',
    );
    ok(await call('Read', { file_path: 'twice.txt' }), 'Read');
    const amb = refused(
      await call('Edit', { file_path: 'twice.txt', old_string: 'x = 1', new_string: 'x = 2' }),
      'ambiguous',
      'Edit of a repeated string',
    );
    equal(amb.structuredContent.error.count, 2, 'the error object keeps its fields');
    equal(amb.structuredContent.error.lines, [1, 2], 'the lines of the hits');
    refused(await call('Read', { file_path: '../secret.txt' }), 'outside_root', 'Read outside');
    refused(
      await call('Write', { file_path: join(dir, 'new.txt'), content: 'x' }),
      'outside_root',
      'Write outside',
    );
    refused(
      await call('Edit', { file_path: 'twice.txt', old_string: 'x = 1', bogus: true }),
      'invalid_input',
      'malformed arguments',
    );
    // The connection goes on serving after the refusals.
    ok(
      await call('Edit', {
        file_path: 'twice.txt',
        old_string: 'x = 1',
        new_string: 'x = 2',
        replace_all: true,
      }),
      'Edit with replace_all',
    );
  } finally {
    await close();
  }
  sameBytes(unread, 'keep\r\n', 'the unread file');
  sameBytes(twice, 'x = 2\nx = 2\n', 'the file edited after its refusal');
  sameBytes(join(dir, 'secret.txt'), 'secret\n', 'the file outside');
  expect(!existsSync(join(dir, 'new.txt')), 'nothing created outside the root');
  noTempFiles(dir);
});

// --- the runner ---------------------------------------------------------------------------

let passed = 0;
let failed = 0;
console.log(`@modelcontextprotocol/sdk ${SDK_VERSION}`);
for (const [transport, connect] of Object.entries(TRANSPORTS)) {
  for (const { name, fn } of CHECKS) {
    const dir = mkdtempSync(join(tmpdir(), 'editref-ts-'));
    try {
      await Promise.race([
        fn(dir, connect),
        new Promise((_, reject) => setTimeout(() => reject(new Error('timed out after 120 s')), 120000).unref()),
      ]);
      console.log(`ok   ${transport}: ${name}`);
      passed += 1;
    } catch (e) {
      console.log(`FAIL ${transport}: ${name}\n${e?.stack ?? e}`);
      failed += 1;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed || !passed ? 1 : 0);
