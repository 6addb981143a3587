// Nimbus account: settings saved to localStorage with a toast, and the
// three-step workshop booking wizard. Practice site of Waymark.
(function () {
  'use strict';
  var base = document.body.dataset.base || '';
  var KEY = 'wm_settings', BOOKINGS = 'wm_bookings';
  var DEFAULTS = {
    profile: {displayName: 'Robin Vale', email: 'robin.vale@example.com', birthday: '1988-07-02', language: 'en', timezone: 'Europe/London', bio: ''},
    security: {twoFactor: false, loginAlerts: true, sessionTimeout: '60', recoveryEmail: ''},
    notifications: {newsletter: true, productUpdates: false, smsAlerts: false, digest: 'daily', quietStart: '', quietEnd: ''},
    preferences: {theme: 'light', density: 'comfortable', weekStart: 'sunday', dateFormat: 'DD/MM/YYYY'}
  };
  function load(key, dflt) { try { var v = JSON.parse(localStorage.getItem(key)); return v == null ? dflt : v; } catch (e) { return dflt; } }
  function saved() { return load(KEY, {}); }
  function current(section) { return Object.assign({}, DEFAULTS[section], saved()[section] || {}); }
  function esc(s) { return String(s).replace(/[&<>"]/g, function (c) { return {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'}[c]; }); }
  var toastTimer;
  function toast(msg) {
    var t = document.getElementById('toast');
    t.textContent = msg; t.hidden = false;
    clearTimeout(toastTimer); toastTimer = setTimeout(function () { t.hidden = true; }, 3000);
  }
  if (current('preferences').theme === 'dark') document.body.classList.add('dark');

  var sec = document.getElementById('sec-status');
  if (sec) sec.textContent = current('security').twoFactor ? 'Strong' : 'Add 2FA';

  // Settings forms: fill from storage, save on submit.
  var form = document.querySelector('form.settings');
  if (form) {
    var section = form.dataset.section;
    var fill = function () {
      var v = current(section);
      Object.keys(v).forEach(function (k) {
        var els = form.querySelectorAll('[name="' + k + '"]');
        els.forEach(function (el) {
          if (el.type === 'checkbox') el.checked = !!v[k];
          else if (el.type === 'radio') el.checked = el.value === v[k];
          else el.value = v[k];
        });
      });
    };
    fill();
    var err = form.querySelector('.formerr');
    form.querySelector('.reset').addEventListener('click', function () { fill(); err.hidden = true; toast('Changes discarded'); });
    form.addEventListener('submit', function (e) {
      e.preventDefault();
      var v = {}, problems = [];
      Object.keys(DEFAULTS[section]).forEach(function (k) {
        var els = form.querySelectorAll('[name="' + k + '"]');
        if (!els.length) return;
        if (els[0].type === 'checkbox') v[k] = els[0].checked;
        else if (els[0].type === 'radio') { var on = form.querySelector('[name="' + k + '"]:checked'); v[k] = on ? on.value : DEFAULTS[section][k]; }
        else v[k] = els[0].value.trim();
      });
      form.querySelectorAll('.invalid').forEach(function (el) { el.classList.remove('invalid'); });
      function bad(name, msg) { problems.push(msg); var el = form.querySelector('[name="' + name + '"]'); if (el) el.classList.add('invalid'); }
      var mail = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
      if (section === 'profile') {
        if (!v.displayName) bad('displayName', 'The display name cannot be empty.');
        if (!mail.test(v.email)) bad('email', 'Enter a valid email address, like name@example.com.');
        if (v.birthday && (v.birthday < '1900-01-01' || v.birthday > new Date().toISOString().slice(0, 10))) bad('birthday', 'The birthday must be a past date.');
      }
      if (section === 'security' && v.recoveryEmail && !mail.test(v.recoveryEmail)) bad('recoveryEmail', 'The recovery email is not a valid address.');
      if (section === 'notifications' && (!v.quietStart) !== (!v.quietEnd)) bad(v.quietStart ? 'quietEnd' : 'quietStart', 'Set both the start and the end of quiet hours, or neither.');
      if (problems.length) { err.hidden = false; err.innerHTML = problems.map(esc).join('<br>'); return; }
      err.hidden = true;
      var all = saved(); all[section] = v;
      localStorage.setItem(KEY, JSON.stringify(all));
      if (section === 'preferences') document.body.classList.toggle('dark', v.theme === 'dark');
      toast('Settings saved');
    });
  }

  // Today's date, from the page's clock and time zone.
  var today = document.getElementById('today');
  if (today) {
    var now = new Date();
    today.textContent = now.toLocaleDateString('en-GB', {weekday: 'long', day: 'numeric', month: 'long', year: 'numeric'});
    today.dateTime = now.getFullYear() + '-' + String(now.getMonth() + 1).padStart(2, '0') + '-' + String(now.getDate()).padStart(2, '0');
  }

  // The site's JSON API (formsapi.go): POST /api/signin, POST /api/bookings.
  function postJSON(url, body) {
    return fetch(url, {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body)}).then(function (r) {
      return r.json().then(function (res) { if (!r.ok) throw new Error(res.error || 'HTTP ' + r.status); return res; });
    });
  }

  // Booking wizard.
  var wiz = document.getElementById('wizard');
  if (wiz) {
    var step = 1;
    var steps = wiz.querySelectorAll('.step'), marks = document.querySelectorAll('#steps li');
    var back = document.getElementById('back'), next = document.getElementById('next'), submit = document.getElementById('submit');
    var errBox = document.getElementById('wizard-error');
    var show = function (n) {
      step = n;
      steps.forEach(function (s) { s.hidden = +s.dataset.step !== n; });
      marks.forEach(function (m, i) { m.className = i + 1 === n ? 'on' : (i + 1 < n ? 'done' : ''); });
      back.hidden = n === 1; next.hidden = n === 3; submit.hidden = n !== 3;
      errBox.hidden = true;
      if (n === 3) drawSummary();
    };
    var chosen = function () { return wiz.querySelector('[name="workshop"]:checked'); };
    var data = function () {
      var w = chosen(), n = parseInt(wiz.participants.value, 10);
      return {workshop: w ? w.value : '', workshopName: w ? w.dataset.name : '', price: w ? +w.dataset.price : 0,
        date: wiz.date.value, participants: n, fullName: wiz.fullName.value.trim(), email: wiz.contactEmail.value.trim(),
        phone: wiz.phone.value.trim(), diet: wiz.diet.value};
    };
    var validate = function (n) {
      var d = data(), p = [];
      wiz.querySelectorAll('.invalid').forEach(function (el) { el.classList.remove('invalid'); });
      var bad = function (el, msg) { p.push(msg); if (el) el.classList.add('invalid'); };
      if (n === 1) {
        if (!d.workshop) bad(null, 'Choose a workshop.');
        if (!d.date) bad(wiz.date, 'Choose a date.');
        else if (new Date(d.date + 'T12:00:00Z').getUTCDay() !== 6) bad(wiz.date, 'Workshops run on Saturdays only: pick a Saturday.');
        if (!(d.participants >= 1 && d.participants <= 8)) bad(wiz.participants, 'Participants must be between 1 and 8.');
      }
      if (n === 2) {
        if (d.fullName.length < 2) bad(wiz.fullName, 'Enter your full name.');
        if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(d.email)) bad(wiz.contactEmail, 'Enter a valid email address, like name@example.com.');
        if (d.phone && !/^[+0-9 ()-]{6,20}$/.test(d.phone)) bad(wiz.phone, 'The phone number may contain only digits, spaces and + ( ) -.');
      }
      if (n === 3 && !wiz.terms.checked) bad(wiz.terms, 'Accept the cancellation terms to book.');
      if (p.length) { errBox.hidden = false; errBox.innerHTML = p.map(esc).join('<br>'); }
      return p.length === 0;
    };
    var drawSummary = function () {
      var d = data();
      var rows = [['Workshop', d.workshopName], ['Date', d.date], ['Participants', d.participants], ['Name', d.fullName], ['Email', d.email],
        ['Phone', d.phone || '—'], ['Dietary', d.diet], ['Total', '$' + (d.price * d.participants)]];
      document.getElementById('summary').innerHTML = rows.map(function (r) { return '<dt>' + r[0] + '</dt><dd>' + esc(r[1]) + '</dd>'; }).join('');
    };
    next.addEventListener('click', function () { if (validate(step)) show(step + 1); });
    back.addEventListener('click', function () { show(step - 1); });
    wiz.addEventListener('submit', function (e) {
      e.preventDefault();
      if (step !== 3) { if (validate(step)) show(step + 1); return; }
      if (!validate(3)) return;
      var d = data();
      // The site numbers bookings in sequence from a fixed start (seq: the
      // bookings this browser made before), never at random, so a replay of
      // the same steps in a fresh profile gets the same reference and URL.
      var list = load(BOOKINGS, []);
      var body = {seq: list.length, workshop: d.workshop, date: d.date, participants: d.participants, fullName: d.fullName,
        email: d.email, phone: d.phone, diet: d.diet};
      submit.disabled = true;
      postJSON(base + '/api/bookings', body).then(function (res) {
        d.ref = res.ref; d.total = res.total;
        list.push(d);
        localStorage.setItem(BOOKINGS, JSON.stringify(list));
        location.href = base + '/book/confirmed?ref=' + encodeURIComponent(res.ref);
      }).catch(function (err) {
        submit.disabled = false;
        errBox.hidden = false; errBox.textContent = 'The booking could not be made: ' + err.message + '. Please try again.';
      });
    });
    show(1);
  }

  // Sign-in page: any email and password sign in; only the email and the
  // time are kept (wm_signin), never the password.
  var signin = document.getElementById('signin');
  if (signin) {
    signin.addEventListener('submit', function (e) {
      e.preventDefault();
      var email = signin.email.value.trim(), pass = signin.password.value, err = signin.querySelector('.formerr');
      signin.querySelectorAll('.invalid').forEach(function (el) { el.classList.remove('invalid'); });
      if (!email) signin.email.classList.add('invalid');
      if (!pass) signin.password.classList.add('invalid');
      if (!email || !pass) { err.textContent = 'Enter your email address and your password.'; err.hidden = false; return; }
      postJSON(base + '/api/signin', {email: email, password: pass, remember: signin.remember.checked}).then(function (res) {
        localStorage.setItem('wm_signin', JSON.stringify({email: res.email, remember: res.remember, at: new Date().toISOString()}));
        location.href = base + '/?signedin=1';
      }).catch(function (e) { err.textContent = 'Could not sign in: ' + e.message; err.hidden = false; });
    });
  }
  if (sec && /[?&]signedin=1/.test(location.search)) {
    var who = load('wm_signin', null);
    if (who) toast('Signed in as ' + who.email);
  }

  var conf = document.getElementById('confirmed');
  if (conf) {
    var b = load(BOOKINGS, []).find(function (x) { return x.ref === conf.dataset.ref; });
    document.getElementById('booking-details').innerHTML = b
      ? '<p><b>' + esc(b.workshopName) + '</b> on <b>' + esc(b.date) + '</b> for ' + b.participants + ' participant' + (b.participants === 1 ? '' : 's') + '. Total <b>$' + b.total + '</b>. A confirmation was sent to ' + esc(b.email) + '.</p>'
      : '<p>We could not find this booking in this browser.</p>';
  }
})();
