// The ragline serve page: a search box over /retrieve and a chat panel over /chat
// (answers streamed as server-sent events, with their sources). No build step, no CDN.
"use strict";

const $ = (id) => document.getElementById(id);
let health = null;
let session = null;  // issued by the server at the first question of a conversation

async function newSession() {
  const response = await fetch("/chat/session", { method: "POST", headers: headers() });
  if (!response.ok) throw await failure(response);
  return (await response.json()).session_id;
}

function headers() {
  const h = { "Content-Type": "application/json" };
  const key = $("api-key").value;
  if (key) h["X-API-Key"] = key;
  return h;
}

async function failure(response) {
  let text = await response.text();
  try {
    const detail = JSON.parse(text).detail;
    text = Array.isArray(detail)
      ? detail.map((p) => (p.loc || []).join(".") + ": " + p.msg).join("; ")
      : String(detail);
  } catch (_) { /* not JSON: keep the text */ }
  const error = new Error(text || response.statusText);
  error.status = response.status;
  return error;
}

async function invoke(path, input) {
  const response = await fetch(path + "/invoke", {
    method: "POST", headers: headers(), body: JSON.stringify({ input }),
  });
  if (!response.ok) throw await failure(response);
  return (await response.json()).output;
}

// POST {path}/stream and call onData(chunk) for each data event as it arrives.
async function stream(path, body, onData) {
  const response = await fetch(path + "/stream", {
    method: "POST", headers: headers(), body: JSON.stringify(body),
  });
  if (!response.ok) throw await failure(response);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n/g, "\n");
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let event = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (event === "data") onData(JSON.parse(data.join("\n")));
      else if (event === "error") throw new Error(JSON.parse(data.join("\n")).message);
      else if (event === "end") return;
    }
  }
}

// What each search type does, and what its score means (shown under the search form).
const SEARCH_TYPES = {
  similarity: "meaning: the passages closest to the query's embedding; relevance in [0, 1]",
  mmr: "meaning, with variety: close passages that do not repeat each other; relevance in [0, 1]",
  similarity_score_threshold: "meaning, above a cut-off: only passages relevant enough; relevance in [0, 1]",
  bm25: "keywords: passages sharing the query's words (BM25); scores are unbounded, compare them within one search",
  hybrid: "keywords and meaning fused: BM25 and embedding results combined; fused score in [0, 1]",
};

function scoreText(value, searchType) {
  if (typeof value !== "number") return "";
  if (searchType === "bm25") return `BM25 score ${value.toFixed(1)}`;
  if (searchType === "hybrid") return `fused score ${value.toFixed(3)}`;
  return `relevance ${value.toFixed(3)}`;
}

// A path that wraps after a "/", never inside a name (not even at its hyphens): each
// part is a box of its own (app.css), with a line-break opportunity after it.
function breakablePath(path) {
  const span = document.createElement("span");
  span.className = "path";
  path.split("/").forEach((part, i, parts) => {
    const last = i === parts.length - 1;
    const piece = document.createElement("span");
    piece.className = "part";
    piece.textContent = part + (last ? "" : "/");
    span.append(piece);
    if (!last) span.append(document.createElement("wbr"));
  });
  return span;
}

function place(meta) {
  const path = typeof meta.path === "string" && meta.path ? meta.path : (meta.source || "(no source)");
  return { path, section: typeof meta.section === "string" && meta.section ? meta.section : null };
}

function passageItem(doc, rank, searchType) {
  const meta = doc.metadata || {};
  const where = place(meta);
  const li = document.createElement("li");
  li.className = "passage";
  const head = document.createElement("div");
  head.className = "meta";
  const source = document.createElement("button");
  source.type = "button";
  source.className = "source";
  source.title = "open the passage";
  source.append(`[${rank}] `, breakablePath(where.path));
  source.addEventListener("click", () => showPassage(doc, rank));
  head.append(source);
  const text = scoreText(meta.relevance_score, searchType);
  if (text) {
    const score = document.createElement("span");
    score.className = "score";
    score.textContent = text;
    head.append(score);
  }
  li.append(head);
  if (where.section) {
    const section = document.createElement("div");
    section.className = "section";
    section.textContent = where.section;
    li.append(section);
  }
  const preview = document.createElement("div");
  preview.className = "preview";
  preview.textContent = doc.page_content;
  const open = document.createElement("button");
  open.type = "button";
  open.className = "open";
  open.textContent = "open passage";
  open.addEventListener("click", () => showPassage(doc, rank));
  li.append(preview, open);
  return li;
}

function showPassage(doc, rank) {
  const where = place(doc.metadata || {});
  $("passage-title").textContent = `[${rank}] ${where.path}` + (where.section ? ` § ${where.section}` : "");
  $("passage-text").textContent = doc.page_content;
  $("passage-dialog").showModal();
}

function renderPassages(list, docs, searchType) {
  list.replaceChildren(...docs.map((doc, i) => passageItem(doc, i + 1, searchType)));
}

// Keep the newest turn in sight: the chat log scrolls to its end, or, when the turn is
// taller than the log, until the question is at its top (the answer starts below it);
// the page scrolls too when the log is out of the window (on a narrow screen the log is
// below the search results).
function follow(reply) {
  const log = $("chat-log");
  const question = reply.previousElementSibling || reply;
  const offset = question.getBoundingClientRect().top - log.getBoundingClientRect().top;
  log.scrollTop = Math.min(log.scrollTop + offset, log.scrollHeight - log.clientHeight);
  const box = log.getBoundingClientRect();
  if (box.bottom > window.innerHeight || box.top < 0) log.scrollIntoView({ block: "nearest" });
}

function explainSearchType() {
  $("search-type-help").textContent = SEARCH_TYPES[$("search-type").value] || "";
}

async function search(event) {
  event.preventDefault();
  const status = $("search-status");
  status.textContent = "searching…";
  const input = {
    query: $("search-query").value,
    k: Number($("search-k").value) || 4,
    search_type: $("search-type").value,
  };
  try {
    const docs = await invoke("/retrieve", input);
    renderPassages($("search-results"), docs, input.search_type);
    status.textContent = docs.length ? `${docs.length} passage(s)` : "no passages found";
  } catch (error) {
    status.textContent = "search failed: " + error.message;
  }
}

function bubble(kind, text) {
  const div = document.createElement("div");
  div.className = "message " + kind;
  if (text !== undefined) div.textContent = text;
  $("chat-log").append(div);
  return div;
}

async function ask(event) {
  event.preventDefault();
  const question = $("chat-input").value.trim();
  if (!question) return;
  $("chat-input").value = "";
  $("chat-send").disabled = true;
  bubble("human", question);
  const reply = bubble("ai");
  follow(reply);
  const answer = document.createElement("div");
  answer.className = "answer";
  const sources = document.createElement("ol");
  sources.className = "passages sources";
  reply.append(answer);
  const showSources = (docs) => {
    if (!docs.length) return;
    const title = document.createElement("p");
    title.className = "sources-title";
    title.textContent = "sources";
    reply.append(title, sources);
    renderPassages(sources, docs, health.search_type);
    follow(reply);
  };
  try {
    if (session === null) session = await newSession();
    const body = { input: { input: question }, config: { configurable: { session_id: session } } };
    await stream("/chat", body, (chunk) => {
      if (typeof chunk.answer === "string") answer.textContent += chunk.answer;
      if (Array.isArray(chunk.context)) showSources(chunk.context);
      follow(reply);
    });
  } catch (error) {
    reply.classList.add("error");
    answer.textContent = error.message;
    follow(reply);
    if (error.status === 503) {  // no model: still show what the store has
      try { showSources(await invoke("/retrieve", { query: question })); } catch (_) { /* shown above */ }
    }
  } finally {
    $("chat-send").disabled = false;
  }
}

async function start() {
  $("search-form").addEventListener("submit", search);
  $("search-type").addEventListener("change", explainSearchType);
  $("chat-form").addEventListener("submit", ask);
  $("chat-input").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); $("chat-form").requestSubmit(); }
  });
  $("chat-new").addEventListener("click", () => { session = null; $("chat-log").replaceChildren(); });
  $("passage-close").addEventListener("click", () => $("passage-dialog").close());
  const state = await loadHealth();
  if (state === "key") {
    // an API key is needed even to describe the store: ask for it, then try again
    $("key-box").hidden = false;
    $("store-info").textContent = "this server needs its API key";
    $("api-key").addEventListener("change", async () => {
      if ((await loadHealth()) === "ok") describe();
    });
  } else if (state === "ok") {
    describe();
  }
}

async function loadHealth() {
  try {
    const response = await fetch("/healthz", { headers: headers() });
    if (response.status === 401) return "key";
    health = await response.json();
  } catch (error) {
    $("store-info").textContent = "server unreachable: " + error.message;
    return "down";
  }
  return "ok";
}

function describe() {
  const model = health.model ? `model ${health.model} (${health.chain_type})` : "no chat model: answers show passages";
  $("store-info").textContent = `${health.documents} passages · ${health.embedding} · ${model}`;
  $("search-type").replaceChildren(...health.search_types.map((t) => {
    const option = new Option(t, t, false, t === health.search_type);
    option.title = SEARCH_TYPES[t] || "";
    return option;
  }));
  explainSearchType();
  $("search-k").value = health.k;
  $("key-box").hidden = !health.auth && !$("api-key").value;
  document.body.dataset.ready = "true";
}

start();
