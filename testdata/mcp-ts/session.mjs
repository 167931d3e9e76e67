// A session against `recess mcp` with the official TypeScript MCP SDK, as
// an agent host would run it: the server started with flags only and a bare
// environment (StdioClientTransport passes only HOME, LOGNAME, PATH, SHELL,
// TERM, USER plus the env given, here none). Run by cmd/recess
// TestMCPTypeScriptClient (see .ci/mcp-ts.sh), which serves the fake GitHub,
// dispatches the run and applies the verdict file afterwards.
//
// usage: node session.mjs CONFIG_JSON
//   CONFIG_JSON: {"command": recess binary, "args": [...flags], "comment": id of a person's comment,
//                 "question": the reply to queue under it}
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const cfg = JSON.parse(process.argv[2]);
const sdk = JSON.parse(readFileSync(new URL("./node_modules/@modelcontextprotocol/sdk/package.json", import.meta.url))).version;

function fail(msg) {
  console.error("mcp-ts session: " + msg);
  process.exit(1);
}

function text(res) {
  return (res.content || []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
}

// The portable-schema rules every tool keeps (SPEC.md, The agent's side).
function checkSchema(where, s, path = "") {
  if (typeof s.type !== "string") fail(`${where}${path}: type ${JSON.stringify(s.type)} is not one type`);
  for (const k of ["$ref", "$defs", "oneOf", "allOf", "anyOf", "not"]) {
    if (k in s) fail(`${where}${path}: keyword ${k}`);
  }
  if (path !== "" && !path.endsWith("[]") && !s.description) fail(`${where}${path}: no description`);
  if (s.type === "object") {
    if (typeof s.properties !== "object") fail(`${where}${path}: object without properties`);
    if (s.additionalProperties !== false) fail(`${where}${path}: additionalProperties is not false`);
    for (const [name, p] of Object.entries(s.properties)) checkSchema(where, p, `${path}.${name}`);
  }
  if (s.type === "array") checkSchema(where, s.items, `${path}[]`);
}

const transport = new StdioClientTransport({ command: cfg.command, args: cfg.args, env: {}, stderr: "inherit" });
const client = new Client({ name: "recess-mcp-ts-session", version: "1.0.0" });
await client.connect(transport);

const { tools } = await client.listTools();
const names = tools.map((t) => t.name).sort();
if (names.join(",") !== "adjourn,read_discussion,read_thread,recess,reply") fail(`tools ${names}`);
for (const t of tools) {
  checkSchema(`${t.name} input`, t.inputSchema);
  if (!t.outputSchema) fail(`${t.name}: no output schema`);
  checkSchema(`${t.name} output`, t.outputSchema);
}

// callTool validates structuredContent against the tool's output schema.
const d = await client.callTool({ name: "read_thread", arguments: {} });
if (d.isError) fail(`read_thread: ${text(d)}`);
if (d.structuredContent.kind !== "discussion") fail(`read_thread: kind ${d.structuredContent.kind}, want discussion`);
const person = d.structuredContent.comments.find((c) => c.id === cfg.comment);
if (!person || person.by_recess || !person.can_reply_to) fail(`read_thread lacks comment ${cfg.comment}: ${JSON.stringify(d.structuredContent)}`);
// read_discussion is read_thread's other name: the same answer.
const alias = await client.callTool({ name: "read_discussion", arguments: {} });
if (alias.isError || JSON.stringify(alias.structuredContent) !== JSON.stringify(d.structuredContent)) fail(`read_discussion differs from read_thread: ${JSON.stringify(alias)}`);

// A reply_to the discussion does not show is queued where the verdict step will post it (at the
// top level, opening with a line that says what it answered), and the answer says so.
const unknown = await client.callTool({ name: "reply", arguments: { body: cfg.question, reply_to: "DC_nope" } });
const u = unknown.structuredContent;
if (unknown.isError || u.queued !== 1 || u.posted_under !== "" || u.checked !== true || !u.note.includes("DC_nope")) {
  fail(`reply with an unknown reply_to: ${JSON.stringify(unknown)}`);
}
const good = await client.callTool({ name: "reply", arguments: { body: cfg.question, reply_to: cfg.comment } });
if (good.isError || good.structuredContent.queued !== 2) fail(`reply: ${JSON.stringify(good)}`);

const badRecess = await client.callTool({ name: "recess", arguments: { summary: "waiting", replies_needed: 1, elapsed: "2 days" } });
if (!badRecess.isError || !text(badRecess).startsWith("refused: elapsed: ")) fail(`recess with a bad elapsed: ${JSON.stringify(badRecess)}`);
const recess = await client.callTool({ name: "recess", arguments: { summary: "waiting for the storage owners", replies_needed: 1, elapsed: "P2D" } });
if (recess.isError || recess.structuredContent.verdict !== "recessed" || recess.structuredContent.replies !== 2) {
  fail(`recess: ${JSON.stringify(recess)}`);
}

await client.close();
console.log(JSON.stringify({ ok: true, sdk, tools: names }));
