"""Pages 03 (boundaries) and 04 (barriers) render in a real browser through the Voila app,
without page errors, cell errors or visible code."""

import pytest


@pytest.mark.browser
@pytest.mark.parametrize("notebook,needle", [
    ("03_boundaries.ipynb", "PMPP fig. 5.9 as printed"),
    ("04_barriers.ipynb", "Runs whose C differs from numpy"),
])
def test_edge_pages_render(voila_server, browser_page, page_errors, notebook, needle):
    page = browser_page
    page.goto(voila_server.page_url(notebook))
    try:
        page.get_by_text(needle).first.wait_for(state="visible", timeout=90_000)
        page.locator(".explainer-stepper .explainer-step-label").filter(has_text="step 1 of").wait_for(timeout=60_000)
    except Exception as e:
        raise AssertionError(f"{notebook} did not render: {e}\nServer log:\n{voila_server.log_tail()}") from None
    text = page.locator("body").inner_text()
    assert "There was an error when executing cell" not in text
    assert "Traceback" not in text
    assert "pages_edges." not in text  # code cells are stripped
    if notebook == "04_barriers.ipynb":  # the variant picker asks Python for the other kernel
        page.locator(".explainer-stepper select.explainer-kernel").select_option("tiled_no_barrier2")
        page.locator(".explainer-stepper .explainer-code").filter(has_text="tiled_no_barrier2_gemm").wait_for(timeout=30_000)
    assert page_errors == []
