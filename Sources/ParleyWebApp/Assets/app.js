// The first cut of the page: lists the chats, or says how to log in.
const main = document.getElementById("app");

function show(text) {
  const paragraph = document.createElement("p");
  paragraph.className = "notice";
  paragraph.textContent = text;
  main.replaceChildren(paragraph);
}

const response = await fetch("/api/chatList", { method: "POST", body: "{}", headers: { "Content-Type": "application/json" } });
if (response.status === 401) {
  show("Not logged in: run 'parley web' and open the URL it prints.");
} else if (!response.ok) {
  show(`The node refused: ${response.status}`);
} else {
  const list = document.createElement("ul");
  for (const chat of await response.json()) {
    const item = document.createElement("li");
    item.textContent = chat.name; // a peer may have chosen it: text, never HTML
    list.append(item);
  }
  main.replaceChildren(list);
}
