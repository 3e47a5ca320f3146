"""The classroom's views, one module per screen.

- ``home``: the teacher's dashboard and a student's "My classes";
- ``join``: the join link, its QR code and the join-code form;
- ``classes``: a class, its join code and co-teachers;
- ``students``: accounts made by the teacher (login cards), new passwords, a student's page;
- ``progress``: the class's results table and its CSV;
- ``assignments``: assigning a set to a class and an assignment's page;
- ``sets``: a teacher's puzzle sets, their order and the printable worksheet;
- ``corpus``: adding puzzles of the site's pool to a set;
- ``pdn``: PDN import into a set and export of a set;
- ``editor``: the board editor, the solution board and "Ask the engine".

``access`` holds the three questions every view asks first (``class_for``, ``set_for``,
``student_of``). The views parse input, call one model method and render one template; what
changes data lives on the models (``PuzzleSet.save_puzzle``, ``PuzzleSet.import_entries``,
``Classroom.create_student_accounts``).
"""
