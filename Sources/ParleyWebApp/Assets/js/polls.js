// Poll cards (live bar charts that the watch's `poll` events redraw) and the "new poll" form with
// every option the CLI has. Options, answers and names come from peers: text nodes only. A secret
// poll's card (js/secret-polls.js) shares the header, question and status line.

import { call } from "./api.js";
import { button, countdown, el, isolated, nameRun } from "./dom.js";
import { disputedVoters, nameNode } from "./forks.js";
import { fillSecretCard } from "./secret-polls.js";

/** The card for a poll's current results; `context`: chat, me, toast(text), onChanged(results). */
export function pollCard(results, context) {
  const card = el("article", { className: "poll", attrs: { "data-id": results.id } });
  fillCard(card, results, context);
  return card;
}

/**
 * Redraws a card with new results, keeping what the user was typing in it (an answer, a
 * suggestion) and where the cursor was.
 */
export function refreshPollCard(card, results, context) {
  const typed = new Map([...card.querySelectorAll("input[data-field]")].map((input) => [input.dataset.field, input.value]));
  const focused = document.activeElement?.closest?.(".poll") === card ? document.activeElement.dataset.field : null;
  // A secret ballot's choices, ticked but not cast yet.
  const ticked = new Set([...card.querySelectorAll("input[data-choice]:checked")].map((input) => input.dataset.choice));
  card.replaceChildren();
  fillCard(card, results, context);
  for (const input of card.querySelectorAll("input[data-field]")) {
    if (typed.has(input.dataset.field)) input.value = typed.get(input.dataset.field);
    if (input.dataset.field === focused) input.focus();
  }
  for (const input of card.querySelectorAll("input[data-choice]:not(:disabled)")) {
    if (ticked.has(input.dataset.choice)) input.checked = true;
  }
}

function fillCard(card, results, context) {
  const mine = results.author === context.me;
  const closed = results.phase === "closed";
  // A disputed poll (its creator signed two histories before closing it) takes nothing more.
  const disputed = results.phase === "disputed";
  card.classList.toggle("closed", closed);
  card.classList.toggle("disputed", disputed);
  const settings = results.settings ?? {};
  const header = el("header", { className: "poll-header" },
    el("span", { className: "poll-badge", text: "📊 Poll" }),
    el("span", { className: "author" }, mine ? "by you" : ["by ", nameRun(results.authorName, results.author)]));
  if (results.secret) {
    header.append(el("span", { className: "tag secret-badge", text: "🔒 secret ballot",
      title: "Each ballot is ring-signed and relayed through two members: no one, not even the members, can tell who voted what" }));
  } else if (settings.anonymous) {
    header.append(el("span", { className: "tag", text: "anonymous", title: "Only counts are shown, never who voted" }));
  }
  card.append(header, el("h3", { className: "question", text: results.question }));
  if (results.description) card.append(el("p", { className: "description", text: results.description }));
  card.append(statusLine(results));
  const disputes = disputedVoters(results);
  if (disputes) card.append(disputes);
  if (results.secret) {
    // Counts only at the close, never voters, and no close button: it closes by itself.
    fillSecretCard(card, results, context, { bar, barFor });
    card.append(el("div", { className: "reactions" }));
    return;
  }

  if (results.kind === "yesNo") card.append(yesNoRows(results, context));
  else card.append(optionRows(results, context));

  if (!settings.anonymous && results.voters.length > 0) card.append(votersLine(results));
  if (settings.allowAnswers) card.append(answers(results, context, closed || disputed));
  if (settings.allowSuggestions && !closed && !disputed) {
    card.append(inputRow("suggest", "Suggest an option", "Suggest", (text) =>
      act(context, results, "pollSuggest", { chat: context.chat, poll: results.id, text })));
  }
  if (mine && !closed && !disputed) {
    card.append(el("div", { className: "poll-actions" },
      button("Close poll", () => act(context, results, "pollClose", { chat: context.chat, poll: results.id }), "danger")));
  }
  if (results.ownBallot === "afterClose") {
    card.append(el("p", { className: "hint", text: "Your vote came after the creator closed the poll: it is not counted." }));
  }
  card.append(el("div", { className: "reactions" }));
}

/** "Open · closes in 4 min 10 s", "Closing…", "Closed · winner: Lake", or "Disputed · …". */
function statusLine(results) {
  const line = el("p", { className: "poll-status" });
  if (results.phase === "disputed") {
    const creator = results.disputes?.creator ?? { id: results.author, name: results.authorName };
    line.classList.add("disputed");
    line.append("Disputed · ", nameNode(creator), " signed two histories before closing it: no result is final");
  } else if (results.phase === "closed") {
    // As the bars star it (`results.bars`): one winner, or a tie between the leaders. Each option's
    // text is a run of its own: an override in one cannot turn the line around it.
    const leaders = winnerTexts(results).map((text) => isolated(text));
    if (leaders.length === 0) line.textContent = "Closed · no votes";
    else if (leaders.length > 1) line.append("Closed · tie: ", ...leaders.flatMap((leader, at) => (at > 0 ? [", ", leader] : [leader])));
    else line.append("Closed · winner: ", leaders[0]);
  } else if (results.phase === "closing") {
    line.textContent = results.secret
      ? "Closing… (relays publish the ballots; the creator's node counts them shortly)"
      : "Closing… (waiting for the creator's close)";
  } else if (results.closesAtMillis) {
    // The page's one-second timer updates every element that carries a closing time.
    line.dataset.closesAt = String(results.closesAtMillis);
    line.textContent = `Open · closes in ${countdown(results.closesAtMillis)}`;
  } else {
    line.textContent = `Open · ${results.totalVotes} ${results.totalVotes === 1 ? "vote" : "votes"}`;
  }
  return line;
}

/** The choices with the most votes (none before the first vote), by their label. */
function winnerTexts(results) {
  const top = Math.max(0, ...results.bars.map((bar) => bar.votes));
  const leaders = top === 0 ? [] : results.bars.filter((bar) => bar.votes === top).map((bar) => bar.choice);
  if (results.kind === "yesNo") return leaders.map((choice) => (choice === "up" ? "Yes" : "No"));
  return leaders.map((id) => results.options.find((option) => option.id === id)?.text ?? id);
}

/** Updates every countdown on the page; called each second. */
export function tickCountdowns() {
  for (const line of document.querySelectorAll("[data-closes-at]")) {
    const closesAt = Number(line.dataset.closesAt);
    line.textContent = closesAt > Date.now() ? `Open · closes in ${countdown(closesAt)}` : "Closing…";
  }
}

/** One bar, filled to `ratio` (a `PollBar`'s share). */
function bar(ratio, { winner = false, own = false } = {}) {
  const fill = el("span", { className: "fill" });
  // CSSOM, which the Content-Security-Policy allows (an inline style attribute it would not).
  fill.style.width = `${Math.round(Math.min(1, Math.max(0, ratio)) * 100)}%`;
  return el("span", { className: `bar${winner ? " winner" : ""}${own ? " own" : ""}` }, fill);
}

/** The rule's bar for `choice` (`results.bars`, the same shares and star the full screen draws). */
function barFor(results, choice) {
  return results.bars.find((bar) => bar.choice === choice) ?? { votes: 0, share: 0, winner: false };
}

function yesNoRows(results, context) {
  const own = results.ownVotes[0] ?? results.myVote ?? null;
  const closed = results.phase !== "open";
  const rows = el("div", { className: "options yes-no" });
  for (const [choice, label, count] of [["up", "👍 Yes", results.up], ["down", "👎 No", results.down]]) {
    const chosen = own === choice;
    const vote = el("button", {
      className: `vote${chosen ? " chosen" : ""}`, text: chosen ? `✓ ${label}` : label,
      title: chosen ? "Your vote" : own ? "You already voted" : "Vote",
      attrs: { type: "button", disabled: closed || own !== null, "aria-pressed": chosen ? "true" : "false" },
      on: { click: () => castVote(context, results, [choice]) },
    });
    const drawn = barFor(results, choice);
    if (drawn.winner) vote.prepend(el("span", { className: "star", text: "★ ", title: "Winner" }));
    rows.append(el("div", { className: "option-row" }, vote,
      bar(drawn.share, { winner: drawn.winner, own: chosen }),
      el("span", { className: "count", text: String(count) })));
  }
  return rows;
}

function optionRows(results, context) {
  const settings = results.settings ?? {};
  const own = new Set(results.ownVotes);
  const limit = settings.unique ? 1 : settings.maxVotes ?? Infinity;
  const closed = results.phase !== "open";
  const rows = el("div", { className: "options" });
  for (const option of results.options) {
    const chosen = own.has(option.id);
    // With `unique` a vote replaces the ballot; otherwise it adds to it, up to the limit.
    const full = !settings.unique && own.size >= limit;
    const vote = el("button", {
      className: `vote${chosen ? " chosen" : ""}`, text: chosen ? "✓ Voted" : "Vote",
      title: chosen ? "Remove this vote" : full ? `You can choose ${limit}` : "Vote for this option",
      attrs: { type: "button", disabled: closed || (!chosen && full), "aria-pressed": chosen ? "true" : "false" },
      on: { click: () => chosen
        ? act(context, results, "pollUnvote", { chat: context.chat, poll: results.id, option: option.id })
        : castVote(context, results, [option.id]) },
    });
    const label = el("span", { className: "option-text", text: option.text });
    if (option.suggestedBy) label.append(el("span", { className: "suggested", text: " (suggested)" }));
    const drawn = barFor(results, option.id);
    if (drawn.winner) label.prepend(el("span", { className: "star", text: "★ ", title: "Winner" }));
    rows.append(el("div", { className: "option-row" }, vote, label, bar(drawn.share, { winner: drawn.winner, own: chosen }),
      el("span", { className: "count", text: String(option.votes) })));
  }
  if (Number.isFinite(limit) && limit > 1) rows.append(el("p", { className: "hint", text: `Choose up to ${limit}.` }));
  if (settings.unique) rows.append(el("p", { className: "hint", text: "One choice: a new vote replaces yours." }));
  return rows;
}

/** "Voted: bob (Lake) · carol (yes)": each name and each option a peer wrote is a run of its own. */
function votersLine(results) {
  const line = el("p", { className: "voters" }, "Voted: ");
  results.voters.forEach((voter, index) => {
    if (index > 0) line.append(" · ");
    line.append(nameRun(voter.name, voter.id));
    if (voter.vote) {
      line.append(` (${voter.vote === "up" ? "yes" : "no"})`);
      return;
    }
    const texts = (voter.options ?? []).map((id) => results.options?.find((option) => option.id === id)?.text ?? id);
    if (texts.length === 0) return;
    line.append(" (");
    texts.forEach((text, at) => line.append(...(at > 0 ? [", "] : []), isolated(text)));
    line.append(")");
  });
  return line;
}

function answers(results, context, closed) {
  const box = el("div", { className: "answers" },
    el("p", { className: "answers-title", text: `Answers (${results.answersCount})` }));
  const list = el("ul");
  for (const answer of results.latestAnswers) {
    const who = answer.author ? nameRun(answer.authorName, answer.author) : "someone";
    list.append(el("li", {}, el("span", { className: "author" }, who, ": "), isolated(answer.text, "answer-text")));
  }
  box.append(list);
  if (!closed) {
    box.append(inputRow("answer", "Your answer", "Answer", (text) =>
      act(context, results, "pollAnswer", { chat: context.chat, poll: results.id, text })));
  }
  return box;
}

function inputRow(field, placeholder, label, submit) {
  const input = el("input", { attrs: { type: "text", placeholder, "aria-label": placeholder, maxlength: "512", "data-field": field } });
  const send = async () => {
    const text = input.value.trim();
    if (!text) return;
    if (await submit(text)) input.value = "";
  };
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      send();
    }
  });
  return el("div", { className: "input-row" }, input, button(label, send));
}

/** Runs a poll request, then redraws the card from fresh results (the watch confirms it too). */
/** Votes (a vote answers with the poll as it stands after it, so the card redraws without asking again). */
async function castVote(context, results, choices) {
  try {
    context.onChanged((await call("pollVote", { chat: context.chat, poll: results.id, choices })).poll);
  } catch (error) {
    context.toast(error.message);
  }
}

async function act(context, results, name, values) {
  try {
    await call(name, values);
    context.onChanged(await call("pollResults", { chat: context.chat, poll: results.id }));
    return true;
  } catch (error) {
    context.toast(error.message);
    return false;
  }
}

/**
 * The "new poll" form: a yes/no poll without options, an options poll with two or more; either may
 * be a secret ballot, which needs a closing time and takes no answers or suggestions.
 */
export function newPollForm(chat, { onDone, toast }) {
  const field = (label, input) => el("label", { className: "field" }, el("span", { text: label }), input);
  const question = el("input", { attrs: { type: "text", required: true, maxlength: "512", name: "question" } });
  const description = el("textarea", { attrs: { rows: "2", maxlength: "1024", name: "description" } });
  const optionsList = el("div", { className: "option-inputs" });
  const addOption = () => optionsList.append(el("input", { attrs: { type: "text", maxlength: "256", placeholder: `Option ${optionsList.children.length + 1}`, "aria-label": "Option" } }));
  addOption();
  addOption();
  const maxVotes = el("input", { attrs: { type: "number", min: "1", name: "maxVotes", placeholder: "no limit" } });
  const checkbox = (name) => el("input", { attrs: { type: "checkbox", name } });
  const unique = checkbox("unique"), anonymous = checkbox("anonymous"), allowAnswers = checkbox("allowAnswers"), allowSuggestions = checkbox("allowSuggestions");
  // Seconds allowed (step 1): a short poll may close within the minute.
  const closesAt = el("input", { attrs: { type: "datetime-local", name: "closesAt", step: "1" } });
  const secret = checkbox("secret");
  const secretHint = el("p", { className: "hint secret-hint", attrs: { hidden: true },
    text: "A secret ballot needs a closing time and at least 3 members besides you, so each vote hides among them. Each ballot is final and relayed through two "
      + "members; counts appear at the close, and no one ever sees who voted what. It takes no answers or suggestions." });
  // Answers and suggestions would be signed by their authors; a secret poll's counts are anonymous anyway.
  let anonymousBefore = false;
  secret.addEventListener("change", () => {
    for (const box of [allowAnswers, allowSuggestions]) {
      if (secret.checked) box.checked = false;
      box.disabled = secret.checked;
    }
    if (secret.checked) anonymousBefore = anonymous.checked;
    anonymous.checked = secret.checked || anonymousBefore;
    anonymous.disabled = secret.checked;
    secretHint.hidden = !secret.checked;
  });
  const error = el("p", { className: "form-error", attrs: { role: "alert" } });
  const create = el("button", { text: "Create poll", className: "primary", attrs: { type: "submit" } });

  const form = el("form", { className: "poll-form" },
    el("h2", { text: "New poll" }),
    field("Question", question),
    el("fieldset", {}, el("legend", { text: "Options (leave empty for a yes/no poll)" }), optionsList,
      button("Add option", addOption)),
    field("Description", description),
    field("Max votes per person", maxVotes),
    el("label", { className: "check" }, unique, " One choice only (unique)"),
    el("label", { className: "check" }, anonymous, " Anonymous (counts only)"),
    el("label", { className: "check" }, allowAnswers, " Allow answers"),
    el("label", { className: "check" }, allowSuggestions, " Allow suggested options"),
    field("Closes at", closesAt),
    el("label", { className: "check" }, secret, " 🔒 Secret ballot (no one sees who voted what)"),
    secretHint,
    error,
    el("div", { className: "form-actions" },
      el("button", { text: "Cancel", attrs: { type: "button", value: "cancel" }, on: { click: () => onDone(null) } }),
      create));

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    const options = [...optionsList.querySelectorAll("input")].map((input) => input.value.trim()).filter(Boolean);
    const values = { chat, question: question.value.trim() };
    const closesAtMillis = closesAt.value ? new Date(closesAt.value).getTime() : null;
    if (secret.checked) {
      if (closesAtMillis === null || Number.isNaN(closesAtMillis)) {
        error.textContent = "A secret ballot needs a closing time: its ballots are published and counted then. Set “Closes at”.";
        closesAt.focus();
        return;
      }
      if (closesAtMillis <= Date.now()) {
        error.textContent = "The closing time has passed: a secret ballot needs one in the future.";
        closesAt.focus();
        return;
      }
      values.secret = true;
      values.closesAtMillis = closesAtMillis;
    }
    if (options.length > 0) {
      values.options = options;
      if (description.value.trim()) values.description = description.value.trim();
      if (maxVotes.value) values.maxVotes = Number(maxVotes.value);
      if (unique.checked) values.unique = true;
      if (anonymous.checked && !secret.checked) values.anonymous = true;
      if (allowAnswers.checked) values.allowAnswers = true;
      if (allowSuggestions.checked) values.allowSuggestions = true;
      if (closesAtMillis !== null) values.closesAtMillis = closesAtMillis;
    } else if (description.value.trim() || maxVotes.value || unique.checked || (anonymous.checked && !secret.checked)
      || allowAnswers.checked || allowSuggestions.checked || (closesAt.value && !secret.checked)) {
      error.textContent = secret.checked
        ? "A secret yes/no poll takes only a question and a closing time: add at least two options for the other settings."
        : "Settings need options: add at least two, or clear the settings for a yes/no poll.";
      return;
    }
    // A secret poll waits a few seconds for the members' ballot keys.
    create.disabled = true;
    create.textContent = secret.checked ? "Creating… (collecting ballot keys)" : "Creating…";
    try {
      onDone(await call("pollCreate", values));
    } catch (failure) {
      error.textContent = failure.message;
      toast?.(failure.message);
    } finally {
      create.disabled = false;
      create.textContent = "Create poll";
    }
  });
  return form;
}
