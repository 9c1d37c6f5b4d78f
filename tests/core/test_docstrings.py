"""Descriptions and parameter docs come out of Google, NumPy and Sphinx docstrings."""

from toolweave.core.docstrings import parse_docstring


def test_google_style() -> None:
    doc = parse_docstring(
        """Find a user.

        Longer text.

        Args:
            name (str): the user's name,
                as typed
            limit: how many

        Returns:
            users
        """
    )
    assert doc.description == "Find a user.\n\nLonger text."
    assert doc.params == {"name": "the user's name, as typed", "limit": "how many"}


def test_numpy_style() -> None:
    doc = parse_docstring(
        """Find a user.

        Parameters
        ----------
        name : str
            the user's name
        limit : int
            how many

        Returns
        -------
        list
        """
    )
    assert doc.description == "Find a user."
    assert doc.params == {"name": "the user's name", "limit": "how many"}


def test_sphinx_style() -> None:
    doc = parse_docstring(
        """Find a user.

        :param name: the user's name
        :param int limit: how many
        :returns: users
        """
    )
    assert doc.description == "Find a user."
    assert doc.params == {"name": "the user's name", "limit": "how many"}


def test_plain_docstring_is_all_description() -> None:
    assert parse_docstring("Just text.\n\nMore.").description == "Just text.\n\nMore."
    assert parse_docstring(None).description is None
