// The MCP TypeScript SDK's own client (`@modelcontextprotocol/sdk`, the SDK desktop hosts and
// editors are built on) against factgraph, run by tests/test_mcp_typescript_sdk.py:
//   node typescript_sdk.cjs FOLDER stdio COMMAND ARG...   (a `factgraph mcp` it spawns)
//   node typescript_sdk.cjs FOLDER http URL SCOPE   (URL/mcp/memory, /mcp/neo4j-memory, /mcp)
// FOLDER holds node_modules/@modelcontextprotocol/sdk. It lists the tools (which arms the
// client's output-schema check), makes a call that succeeds and calls that fail, and prints
// what the SDK handed back as one JSON line: a failure as the exception it threw.
"use strict";
const path = require("node:path");
const { createRequire } = require("node:module");

async function outcome(call) {
  try {
    const result = await call();
    return {
      isError: Boolean(result.isError),
      text: result.content.map((block) => block.text).join(""),
      structured: result.structuredContent ?? null,
      meta: result._meta ?? null,
    };
  } catch (error) {
    return { threw: `${error.name}: ${error.message}` };
  }
}

async function session(sdk, transport, calls) {
  const client = new sdk.Client({ name: "factgraph-test", version: "1.0.0" });
  await client.connect(transport);
  const out = { server: client.getServerVersion().name };
  const { tools } = await client.listTools();
  out.tools = tools.map((tool) => [tool.name, Boolean(tool.outputSchema)]);
  for (const [label, name, args] of calls) {
    out[label] = await outcome(() => client.callTool({ name, arguments: args }));
  }
  await client.close();
  return out;
}

// The knowledge-graph tools of @modelcontextprotocol/server-memory: every one declares an
// output schema, so each failure below threw in the SDK's client before the fix.
const MEMORY_CALLS = [
  ["created", "create_entities", { entities: [{ name: "Alice", entityType: "person", observations: ["likes tea"] }] }],
  ["opened", "open_nodes", { names: ["Alice"] }],
  ["missing", "add_observations", { observations: [{ entityName: "Nobody", contents: ["x"] }] }],
  ["badName", "create_entities", { entities: [{ name: " ", entityType: "person", observations: [] }] }],
];

// factgraph's own tools declare no output schema; their errors keep structuredContent.error.
const FACTGRAPH_CALLS = [
  ["remembered", "remember", { text: "Alice drinks green tea" }],
  ["searched", "search", { query: "what does Alice drink?", top_k: 3 }],
  ["badTopK", "search", { query: "tea", top_k: 500 }],
];

// mcp-neo4j-memory's tools, on the graph the calls above made (one graph per scope).
const NEO4J_MEMORY_CALLS = [
  ["found", "find_memories_by_name", { names: ["Alice"] }],
  ["missing", "add_observations", { observations: [{ entityName: "Nobody", observations: ["x"] }] }],
];

async function main(folder, mode, ...rest) {
  const load = createRequire(path.join(folder, "package.json"));
  const sdk = {
    ...load("@modelcontextprotocol/sdk/client/index.js"),
    ...load("@modelcontextprotocol/sdk/client/stdio.js"),
    ...load("@modelcontextprotocol/sdk/client/streamableHttp.js"),
  };
  if (mode === "stdio") {
    const [command, ...args] = rest;
    const transport = new sdk.StdioClientTransport({
      command,
      args,
      env: process.env,
      stderr: "ignore",
    });
    return { memory: await session(sdk, transport, MEMORY_CALLS) };
  }
  const [url, scope] = rest;
  const over = (route) =>
    new sdk.StreamableHTTPClientTransport(new URL(url + route), {
      requestInit: { headers: { "X-Scope": scope } },
    });
  return {
    memory: await session(sdk, over("/mcp/memory"), MEMORY_CALLS),
    neo4jMemory: await session(sdk, over("/mcp/neo4j-memory"), NEO4J_MEMORY_CALLS),
    factgraph: await session(sdk, over("/mcp"), FACTGRAPH_CALLS),
  };
}

main(...process.argv.slice(2)).then(
  (out) => console.log(JSON.stringify(out)),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
