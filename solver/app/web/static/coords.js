// The board's coordinates, shared by the web pages (common.js) and the puzzle book
// (puzzles/book.py puts this file in each book): each row's letter at both its ends, each
// point's number (its place in its row) under it, drawn over the stones with a halo of the
// page's colour so that no stone hides them, and at least MIN_PX pixels high however small
// the board is drawn (a phone, a large board).
var MeridiansCoords = (function () {
  "use strict";

  function coordinates(b) {
    var s = 2 * b.hit, rows = {}, out = ['<g class="coords" text-anchor="middle" dominant-baseline="central" fill="#3b2f20" ' +
      'stroke="#fbf8f1" stroke-linejoin="round" paint-order="stroke" pointer-events="none" data-s="' + s + '">'];
    b.names.forEach(function (n, p) { (rows[n[0]] = rows[n[0]] || []).push(p); });
    Object.keys(rows).forEach(function (r) {
      var lo = rows[r][0], hi = lo;
      rows[r].forEach(function (p) { if (b.xy[2 * p] < b.xy[2 * lo]) { lo = p; } if (b.xy[2 * p] > b.xy[2 * hi]) { hi = p; } });
      [[lo, -1], [hi, 1]].forEach(function (e) {
        out.push('<text class="coord row" font-weight="bold" x="' + Math.round(100 * (b.xy[2 * e[0]] + e[1] * 1.15 * s)) / 100 +
                 '" y="' + b.xy[2 * e[0] + 1] + '">' + r + "</text>");
      });
    });
    b.names.forEach(function (n, p) {
      out.push('<text class="coord col" x="' + b.xy[2 * p] + '" y="' + Math.round(100 * (b.xy[2 * p + 1] + 0.56 * s)) / 100 +
               '">' + n.slice(1) + "</text>");
    });
    out.push("</g>");
    return out.join("");
  }

  var MIN_PX = 11.5;
  // Sizes the coordinates of a drawn board; returns its scale (pixels per unit of the
  // drawing), 0 when it is not laid out.
  function fit(svg) {
    var g = svg && svg.querySelector(".coords"), box = svg && svg.getBoundingClientRect(), vb = svg && svg.viewBox.baseVal;
    if (!g || !box.width || !vb || !vb.width) { return 0; }
    var scale = Math.min(box.width / vb.width, box.height / vb.height), s = parseFloat(g.getAttribute("data-s"));
    [["row", 0.34], ["col", 0.24]].forEach(function (k) {
      var size = Math.max(k[1] * s, MIN_PX / scale);
      Array.prototype.forEach.call(g.querySelectorAll(".coord." + k[0]), function (t) {
        t.setAttribute("font-size", Math.round(100 * size) / 100);
        t.setAttribute("stroke-width", Math.round(100 * size / 4) / 100);
      });
    });
    return scale;
  }

  return { coordinates: coordinates, fit: fit };
})();
