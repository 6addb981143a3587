// Shared by the staleness corpus: the page-state value the test reads is
// window.__state(): the #state text, the hash and the scroll position.
window.setState = v => { document.getElementById('state').textContent = v; };
window.__state = () => {
  const e = document.getElementById('state');
  return (e ? e.textContent : '') + '|' + location.hash + '|' + Math.round(scrollY);
};
window.clicks = 0;
