// Trailhead Outfitters: cart in localStorage, search suggestions, stock checks
// and the checkout form. Practice site of Waymark; no network beyond this host.
// The JSON API it calls (answered by shopapi.go):
//   GET /api/products?q=…  suggestions     GET /api/products/{id}  cart price check
//   GET /api/stock/{sku}   stock check     POST /api/orders        place an order
(function () {
  'use strict';
  var base = document.body.dataset.base || '';
  var CART = 'wm_cart', ORDERS = 'wm_orders';

  function load(key, dflt) {
    try { var v = JSON.parse(localStorage.getItem(key)); return v == null ? dflt : v; } catch (e) { return dflt; }
  }
  function save(key, v) { localStorage.setItem(key, JSON.stringify(v)); }
  function money(c) {
    var d = Math.floor(c / 100).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
    return '$' + d + '.' + ('0' + (c % 100)).slice(-2);
  }
  function esc(s) { return String(s).replace(/[&<>"]/g, function (c) { return {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'}[c]; }); }
  function cart() { return load(CART, []); }
  function cartCount() { return cart().reduce(function (n, i) { return n + i.qty; }, 0); }
  function showCount() { var b = document.getElementById('cart-count'); if (b) b.textContent = cartCount(); }
  window.wmCart = cart;

  function getJSON(url) {
    return fetch(url).then(function (r) { if (!r.ok) throw new Error('HTTP ' + r.status); return r.json(); });
  }

  // Search suggestions (the server answers after ~200 ms).
  var q = document.getElementById('q'), sug = document.getElementById('suggest'), timer = null, seq = 0;
  if (q && sug) {
    q.addEventListener('input', function () {
      clearTimeout(timer);
      var text = q.value.trim();
      if (text.length < 2) { sug.hidden = true; return; }
      timer = setTimeout(function () {
        var my = ++seq;
        getJSON(base + '/api/products?q=' + encodeURIComponent(text) + '&limit=6').then(function (res) {
          if (my !== seq) return;
          var list = res.products;
          sug.innerHTML = list.map(function (s) {
            return '<li><a href="' + base + s.url + '"><span>' + esc(s.name) + '</span><b>' + s.priceText + '</b></a></li>';
          }).join('');
          sug.hidden = list.length === 0;
        }).catch(function () { sug.hidden = true; });
      }, 120);
    });
    document.addEventListener('click', function (e) { if (!sug.contains(e.target) && e.target !== q) sug.hidden = true; });
    q.addEventListener('keydown', function (e) { if (e.key === 'Escape') sug.hidden = true; });
  }

  // Product page.
  var prod = document.querySelector('.product');
  if (prod) {
    var slug = prod.dataset.slug, sku = prod.dataset.sku, name = prod.dataset.name, price = +prod.dataset.price;
    var sizeSel = document.getElementById('size'), qtyIn = document.getElementById('qty');
    var added = document.getElementById('added'), stock = document.getElementById('stock-status');
    var sizes = document.getElementById('sizes');
    if (sizes) {
      sizes.addEventListener('click', function (e) {
        var btn = e.target.closest('.size');
        if (!btn) return;
        sizes.querySelectorAll('.size').forEach(function (b) { b.classList.toggle('on', b === btn); b.setAttribute('aria-checked', b === btn ? 'true' : 'false'); });
        sizeSel.value = btn.dataset.size;
        sizes.classList.remove('invalid');
        if (!added.hidden && added.className === 'errors') added.hidden = true;
      });
    }
    var clampQty = function (n) { return Math.max(1, Math.min(10, n || 1)); };
    document.getElementById('qty-minus').addEventListener('click', function () { qtyIn.value = clampQty((parseInt(qtyIn.value, 10) || 1) - 1); });
    document.getElementById('qty-plus').addEventListener('click', function () { qtyIn.value = clampQty((parseInt(qtyIn.value, 10) || 1) + 1); });
    document.getElementById('add-to-cart').addEventListener('click', function () {
      var size = sizeSel ? sizeSel.value : '';
      if (sizeSel && !size) {
        added.hidden = false; added.className = 'errors'; added.textContent = 'Please choose a size first.';
        sizes.classList.add('invalid'); return;
      }
      var n = clampQty(parseInt(qtyIn.value, 10));
      qtyIn.value = n;
      var c = cart(), line = c.find(function (i) { return i.slug === slug && i.size === size; });
      if (line) line.qty += n; else c.push({slug: slug, name: name, price: price, size: size, qty: n});
      save(CART, c); showCount();
      added.hidden = false; added.className = 'added';
      added.innerHTML = 'Added ' + n + ' × ' + esc(name) + (size ? ' (size ' + esc(size) + ')' : '') + ' to your cart. <a href="' + base + '/cart">View cart</a>';
    });
    document.getElementById('check-stock').addEventListener('click', function () {
      var size = sizeSel ? sizeSel.value : '';
      stock.textContent = 'Checking stock…';
      getJSON(base + '/api/stock/' + encodeURIComponent(sku) + (size ? '?size=' + encodeURIComponent(size) : '')).then(function (s) {
        stock.textContent = s.stock > 0 ? 'In stock: ' + s.stock + ' available' + (size ? ' in size ' + size : '') : 'Out of stock' + (size ? ' in size ' + size : '');
      }).catch(function () { stock.textContent = 'Could not check stock. Please try again.'; });
    });
  }

  // Cart page.
  var rows = document.getElementById('cart-rows');
  function drawCart() {
    var c = cart(), sub = 0;
    document.getElementById('cart-empty').hidden = c.length > 0;
    document.getElementById('cart-table').hidden = c.length === 0;
    document.getElementById('cart-summary').hidden = c.length === 0;
    rows.innerHTML = c.map(function (i, k) {
      sub += i.price * i.qty;
      return '<tr><td><a href="' + base + '/product/' + i.slug + '">' + esc(i.name) + '</a></td><td>' + (esc(i.size) || '—') + '</td><td>' + money(i.price) +
        '</td><td><input type="number" min="1" max="10" value="' + i.qty + '" data-k="' + k + '" class="qty-input" aria-label="Quantity of ' + esc(i.name) + '"></td><td>' + money(i.price * i.qty) +
        '</td><td><button class="remove" data-k="' + k + '">Remove</button></td></tr>';
    }).join('');
    document.getElementById('subtotal').textContent = money(sub);
    showCount();
  }
  // The cart keeps the price and name seen when the product was added; the
  // shop's current ones replace them (and the cart is drawn again) when
  // they differ.
  function checkPrices() {
    var ids = [];
    cart().forEach(function (i) { if (ids.indexOf(i.slug) < 0) ids.push(i.slug); });
    ids.forEach(function (id) {
      getJSON(base + '/api/products/' + encodeURIComponent(id)).then(function (p) {
        var c = cart(), changed = false;
        c.forEach(function (i) {
          if (i.slug === p.id && (i.price !== p.price || i.name !== p.name)) { i.price = p.price; i.name = p.name; changed = true; }
        });
        if (changed) { save(CART, c); drawCart(); }
      }).catch(function () { /* keep the stored price */ });
    });
  }
  if (rows) {
    drawCart();
    checkPrices();
    rows.addEventListener('change', function (e) {
      if (!e.target.classList.contains('qty-input')) return;
      var c = cart(), k = +e.target.dataset.k, n = parseInt(e.target.value, 10);
      if (!(n >= 1)) n = 1;
      c[k].qty = Math.min(10, n); save(CART, c); drawCart();
    });
    rows.addEventListener('click', function (e) {
      if (!e.target.classList.contains('remove')) return;
      var c = cart(); c.splice(+e.target.dataset.k, 1); save(CART, c); drawCart();
    });
  }

  // Checkout.
  var form = document.getElementById('checkout-form');
  var SHIP = {standard: 500, express: 1500, pickup: 0};
  function drawSummary() {
    var c = cart(), sub = 0, ship = form.shipping.value;
    document.getElementById('summary-lines').innerHTML = c.map(function (i) {
      sub += i.price * i.qty;
      return '<div class="sumrow">' + i.qty + ' × ' + esc(i.name) + (i.size ? ' (' + esc(i.size) + ')' : '') + ' <span>' + money(i.price * i.qty) + '</span></div>';
    }).join('') || '<p>Your cart is empty.</p>';
    var sc = ship in SHIP ? SHIP[ship] : null;
    document.getElementById('sum-ship').textContent = sc == null ? '—' : money(sc);
    document.getElementById('sum-total').textContent = money(sub + (sc || 0));
  }
  function luhn(num) {
    var sum = 0, alt = false;
    for (var i = num.length - 1; i >= 0; i--) {
      var d = +num[i]; if (alt) { d *= 2; if (d > 9) d -= 9; } sum += d; alt = !alt;
    }
    return sum % 10 === 0;
  }
  if (form) {
    drawSummary();
    form.shipping.addEventListener('change', drawSummary);
    form.addEventListener('submit', function (e) {
      e.preventDefault();
      var f = form, errs = [], bad = [];
      function need(el, ok, msg) { el.classList.toggle('invalid', !ok); if (!ok) { errs.push(msg); bad.push(el); } }
      var c = cart();
      if (c.length === 0) errs.push('Your cart is empty: add a product before checking out.');
      need(f.name, f.name.value.trim().length >= 2, 'Enter your full name.');
      need(f.email, /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(f.email.value.trim()), 'Enter a valid email address, like name@example.com.');
      need(f.address, f.address.value.trim().length >= 4, 'Enter your street address.');
      need(f.city, f.city.value.trim().length >= 2, 'Enter your city.');
      need(f.zip, /^[A-Za-z0-9 -]{3,10}$/.test(f.zip.value.trim()), 'Enter a valid postcode.');
      need(f.shipping, f.shipping.value !== '', 'Choose a shipping method.');
      var card = f.card.value.replace(/[\s-]/g, '');
      need(f.card, /^\d{13,19}$/.test(card) && luhn(card), 'The card number is not valid. Check the digits (test card: 4242 4242 4242 4242).');
      var m = /^(\d{2})\s*\/\s*(\d{2})$/.exec(f.expiry.value.trim()), okExp = false;
      if (m) { var mm = +m[1], yy = 2000 + +m[2], now = new Date(); okExp = mm >= 1 && mm <= 12 && (yy > now.getFullYear() || (yy === now.getFullYear() && mm >= now.getMonth() + 1)); }
      need(f.expiry, okExp, 'Enter a future expiry date as MM/YY.');
      need(f.cvc, /^\d{3,4}$/.test(f.cvc.value.trim()), 'The CVC is the 3 digits on the back of the card.');
      var box = document.getElementById('form-errors');
      if (errs.length) {
        box.hidden = false;
        box.innerHTML = '<b>Please fix the following:</b><ul>' + errs.map(function (x) { return '<li>' + esc(x) + '</li>'; }).join('') + '</ul>';
        if (bad[0]) bad[0].focus();
        return;
      }
      box.hidden = true;
      // The shop numbers the order in sequence from a fixed start (seq: the
      // orders this browser placed before), never at random: the same steps
      // in a fresh profile give the same order page and URL, so a recorded
      // episode replays step for step. Only the card's last 4 digits leave
      // the page.
      var orders = load(ORDERS, []);
      var order = {items: c, name: f.name.value.trim(), email: f.email.value.trim(), address: f.address.value.trim(),
        city: f.city.value.trim(), zip: f.zip.value.trim(), country: f.country.value, shipping: f.shipping.value};
      var body = {seq: orders.length, items: c.map(function (i) { return {id: i.slug, size: i.size, qty: i.qty}; }), name: order.name, email: order.email,
        address: order.address, city: order.city, zip: order.zip, country: order.country, shipping: order.shipping, cardLast4: card.slice(-4)};
      var btn = document.getElementById('place-order');
      btn.disabled = true;
      fetch(base + '/api/orders', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body)}).then(function (r) {
        return r.json().then(function (res) { if (!r.ok) throw new Error(res.error || 'HTTP ' + r.status); return res; });
      }).then(function (res) {
        order.number = res.number; order.subtotal = res.subtotal; order.total = res.total;
        order.card = '•••• ' + card.slice(-4); order.placedAt = new Date().toISOString();
        orders.push(order); save(ORDERS, orders);
        save(CART, []);
        location.href = base + '/order/' + res.number;
      }).catch(function (err) {
        btn.disabled = false;
        box.hidden = false;
        box.innerHTML = '<b>The order could not be placed:</b> ' + esc(err.message) + '. Please try again.';
      });
    });
  }

  // Order confirmation.
  var conf = document.getElementById('confirm');
  if (conf) {
    var o = load(ORDERS, []).find(function (x) { return x.number === conf.dataset.order; });
    var det = document.getElementById('order-details');
    if (o) {
      det.innerHTML = '<p>We sent a confirmation to <b>' + esc(o.email) + '</b>. Shipping: <b>' + esc(o.shipping) + '</b>. Total paid: <b>' + money(o.total) + '</b>.</p><ul class="plain">' +
        o.items.map(function (i) { return '<li>' + i.qty + ' × ' + esc(i.name) + (i.size ? ' (size ' + esc(i.size) + ')' : '') + '</li>'; }).join('') + '</ul>';
    } else {
      det.innerHTML = '<p>We could not find the details of this order in this browser.</p>';
    }
  }

  showCount();
})();
