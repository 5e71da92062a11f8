// The login answer's one script (the CSP allows no inline one): keeps the session's proof in this
// origin's localStorage, which no page of another port can read (cookies, unlike storage, go to every
// port of a host), then replaces the login address and its history entry with the page. It imports
// nothing, so the login costs one file more than the page; the key is js/api.js's `proofKey`.
const proof = document.querySelector('meta[name="parley-session-proof"]')?.content;
if (proof) localStorage.setItem("parley-session-proof", proof);
location.replace("/");
