// mem0's JavaScript client (npm `mem0ai`) against factgraph, run by
// tests/test_mem0_other_clients.py: `node client.cjs FOLDER URL KEY USER`, where FOLDER holds
// node_modules/mem0ai. It makes the calls of mem0's JavaScript quickstart and prints what it
// saw as one JSON line.
"use strict";
const path = require("node:path");
const { createRequire } = require("node:module");

async function failure(call) {
  try {
    await call();
  } catch (error) {
    return [error.name, String(error.message)];
  }
  return [];
}

async function main(folder, url, key, user) {
  const load = createRequire(path.join(folder, "package.json"));
  const { MemoryClient } = load("mem0ai");
  const client = new MemoryClient({ apiKey: key, host: url });
  await client.initialized;
  const out = { projectId: client.projectId, organizationId: client.organizationId };
  const added = await client.add(
    [
      { role: "user", content: "I collect vinyl records" },
      { role: "user", content: "My cat is called Miso" },
    ],
    { userId: user, infer: false, metadata: { from: "js" } },
  );
  out.addEvents = added.results.map((r) => r.event);
  out.addStatus = [added.status, /^[0-9a-f-]{36}$/.test(added.eventId)];
  const [vinyl, miso] = added.results.map((r) => r.id);
  const found = await client.search("what music does the user like?", {
    filters: { user_id: user },
    topK: 5,
  });
  out.searchTop = found.results[0].memory;
  out.searchMetadata = found.results[0].metadata;
  const page = await client.getAll({ filters: { user_id: user }, page: 1, pageSize: 10 });
  out.listed = page.results.map((r) => r.memory).sort();
  out.count = page.count;
  out.get = (await client.get(miso)).memory;
  const renamed = await client.update(miso, { text: "My cat is called Tofu" });
  out.updated = renamed.memory;
  out.updatedKeepsId = renamed.id === miso && (await client.get(miso)).id === miso;
  const history = await client.history(miso);
  out.history = history.map((h) => [h.event, h.oldMemory, h.newMemory]);
  out.historyOfTheId = history.filter((h) => h.memoryId === miso).length;
  out.timestamp = (await client.update(vinyl, { timestamp: 1577836800 })).timestamp;
  out.bareString = await failure(() => client.add("I like tea", { userId: user }));
  out.users = (await client.users()).results.map((e) => [e.type, e.name]);
  await client.batchUpdate([{ memoryId: vinyl, text: "I collect jazz records" }]);
  out.afterBatch = (await client.get(vinyl)).memory;
  out.feedback = (await client.feedback({ memoryId: vinyl, feedback: "POSITIVE" })).feedback;
  out.badFilter = await failure(() =>
    client.search("x", { filters: { user_id: user, colour: "red" } }),
  );
  await client.delete(vinyl);
  out.deletedGet = await failure(() => client.get(vinyl));
  out.deleteAll = await client.deleteAll({ userId: user });
  out.after = (await client.getAll({ filters: { user_id: user } })).results;
  return out;
}

main(...process.argv.slice(2, 6)).then(
  (out) => console.log(JSON.stringify(out)),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
