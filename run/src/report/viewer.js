const GLYPH = { W: {K:'♔',Q:'♕',R:'♖',B:'♗',N:'♘',P:'♙',x:'●'}, B: {k:'♚',q:'♛',r:'♜',b:'♝',n:'♞',p:'♟',o:'○'} };
// Pieces without a chess glyph (Shako's elephant E and cannon C) show as letters.
const piece = (side, c) => GLYPH[side][c] || '<span class="' + (side === 'W' ? 'lw' : 'lb') + '">' + c.toUpperCase() + '</span>';
function drawBoard(el, cells, size, height) {
  const files = 'abcdefghijklmnopqrstuvwxyz'.slice(0, size);
  let html = '<table class="board">';
  for (let r = 0; r < height; r++) {
    html += '<tr>';
    for (let f = 0; f < size; f++) {
      const i = 2 * (size * r + f), w = cells[i], b = cells[i + 1];
      const shade = (r + f) % 2 === 0 ? 'light' : 'dark';
      const union = w !== '.' && b !== '.';
      const txt = (w !== '.' ? piece('W', w) : '') + (b !== '.' ? piece('B', b) : '');
      html += '<td class="' + shade + (union ? ' union' : '') + '" title="' + files[f] + (height - r) + '">' + txt + '</td>';
    }
    html += '<td class="coords">' + (height - r) + '</td></tr>';
  }
  html += '<tr>' + [...files].map(c => '<td class="coords">' + c + '</td>').join('') + '</tr></table>';
  el.innerHTML = html;
}
GAMES.forEach((g, n) => {
  const box = document.createElement('div');
  box.className = 'game';
  box.innerHTML = '<h3>' + g.title + '</h3><div class="b"></div><div class="controls">' +
    '<button data-d="-1000">«</button><button data-d="-1">‹ back</button><button data-d="1">next ›</button><button data-d="1000">»</button>' +
    ' <span class="idx"></span></div><div class="turn"></div><div class="moves"></div>';
  document.getElementById('games').appendChild(box);
  box.querySelector('.moves').textContent = g.moves || '';
  let at = g.turns.length - 1;
  const show = () => {
    drawBoard(box.querySelector('.b'), g.turns[at][1], g.size || 8, g.height || g.size || 8);
    box.querySelector('.idx').textContent = 'turn ' + at + ' / ' + (g.turns.length - 1);
    box.querySelector('.turn').textContent = g.turns[at][0];
  };
  box.querySelectorAll('button').forEach(b => b.onclick = () => {
    at = Math.max(0, Math.min(g.turns.length - 1, at + Number(b.dataset.d)));
    show();
  });
  show();
});
