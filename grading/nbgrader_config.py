# nbgrader's configuration for the course: run every nbgrader command from this folder
# (docs/grading.md walks through them).
c = get_config()  # noqa: F821

c.CourseDirectory.course_id = "tiled-gemm"

# The kernel cell is CUDA C that `%%writefile` saves; its solution region is `// BEGIN SOLUTION` ..
# `// END SOLUTION`, so the stub that replaces it in the student version is a C comment. (The
# stub is chosen by the notebook's language; this course has no Python solution cell.)
c.ClearSolutions.code_stub = {
    "python": "// FILL ME IN (roughly 25 lines): the row and column of this thread's element, the phases\n"
              "// over K (CEIL_DIV), the two copies into As and Bs with zeros outside A and B, two\n"
              "// __syncthreads(), the T multiply-adds, and the store, only inside C.",
}

# A kernel file written by running the notebook in source/ (the solution) is neither released to
# students nor copied over a submission before autograding: every notebook writes its own file.
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", "*.cu"]

# The checks run the simulator twice (T = 4 and 16); it stops an endless loop after 20 s a launch.
c.Execute.timeout = 180
