/* global window, document, jQuery, FullCalendar */
// The Bookshop's events calendar (healing bench, fullcalendar pair): month,
// week, day and list views of March 2025, a day with more events than fit
// (two rows, the +more link one of them: 3.x's eventLimit, dayMaxEventRows since 5),
// navigation by the day numbers, and a panel of ours that shows the event
// clicked. FullCalendar 3 is a jQuery plugin (its views month, agendaWeek,
// agendaDay, listMonth; its own Calendar class takes a jQuery element); 4
// and later a Calendar class alone (dayGridMonth, timeGridWeek, timeGridDay,
// listMonth).
(function () {
  var events = [
    { id: 'dune', title: 'Reading: Dune', start: '2025-03-04T18:00:00', end: '2025-03-04T19:30:00' },
    { id: 'austen', title: 'Signing: Jane Austen Society', start: '2025-03-07T15:00:00', end: '2025-03-07T17:00:00' },
    { id: 'poetry', title: 'Poetry night', start: '2025-03-12T19:00:00', end: '2025-03-12T21:00:00' },
    { id: 'story', title: 'Story hour for children', start: '2025-03-12T10:00:00', end: '2025-03-12T11:00:00' },
    { id: 'club', title: 'Book club: Emma', start: '2025-03-12T17:00:00', end: '2025-03-12T18:00:00' },
    { id: 'qa', title: 'Author Q&A: Octavia Butler readers', start: '2025-03-12T20:00:00', end: '2025-03-12T21:30:00' },
    { id: 'sale', title: 'Spring sale', start: '2025-03-20', end: '2025-03-24', allDay: true },
    { id: 'inventory', title: 'Inventory (shop closed)', start: '2025-03-27', allDay: true },
  ];
  var where = { dune: 'Main room', austen: 'Café', poetry: 'Main room', story: 'Children\'s corner', club: 'Café', qa: 'Main room', sale: 'Whole shop', inventory: 'Whole shop' };
  function show(id, title) {
    document.getElementById('details-title').textContent = title;
    document.getElementById('details-where').textContent = where[id] || '';
  }
  var el = document.getElementById('calendar');
  var header = { left: 'prev,next today', center: 'title' };
  if (!(window.jQuery && jQuery.fn.fullCalendar)) {
    header.right = 'dayGridMonth,timeGridWeek,timeGridDay,listMonth';
    var calendar = new FullCalendar.Calendar(el, {
      initialView: 'dayGridMonth', initialDate: '2025-03-10', timeZone: 'local', headerToolbar: header, navLinks: true,
      dayMaxEventRows: 2, height: 'auto', events: events,
      eventClick: function (info) { info.jsEvent.preventDefault(); show(info.event.id, info.event.title); },
    });
    calendar.render();
  } else {
    header.right = 'month,agendaWeek,agendaDay,listMonth';
    jQuery(el).fullCalendar({
      defaultView: 'month', defaultDate: '2025-03-10', header: header, navLinks: true,
      eventLimit: 2, height: 'auto', events: events,
      eventClick: function (event) { show(event.id, event.title); return false; },
    });
  }
})();
