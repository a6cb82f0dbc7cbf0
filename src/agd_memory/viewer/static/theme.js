// Runs in <head> before the first paint so a dark-theme user never sees a white flash.
// The choice is remembered under the same key as the earlier viewer.
(function () {
  var saved = null;
  try { saved = localStorage.getItem("agd-viewer-theme"); } catch (e) { /* storage off */ }
  var dark = saved ? saved === "dark"
    : !!(window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches);
  document.documentElement.dataset.theme = dark ? "dark" : "light";
})();
