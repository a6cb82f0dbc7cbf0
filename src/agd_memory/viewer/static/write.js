// The page's writes: a same-origin POST carrying the server's token (the page's <meta>),
// which a page of another origin can neither read nor send without a refused preflight.
const TOKEN = document.querySelector('meta[name="agd-write-token"]')?.content || "";

export async function post(url, data) {
  const response = await fetch(url, {
    method: "POST",
    cache: "no-store",
    headers: { "Content-Type": "application/json", "X-AGD-Token": TOKEN },
    body: JSON.stringify(data),
  });
  let answer = null;
  try { answer = await response.json(); } catch { /* a plain-text refusal */ }
  if (!response.ok) {
    const err = new Error(answer?.error || `HTTP ${response.status}`);
    err.current = answer?.current;  // a stale edit: the entry as it is now
    throw err;
  }
  return answer;
}
