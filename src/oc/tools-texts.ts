/**
 * The texts oc adm release extract --tools writes beside the binaries it archives: each archive's README.md and the
 * preamble of release.txt. They are what users of oc's tools archives have always found in them, so they are kept
 * word for word (the Windows README has a tab where a space was meant: it is in every oc archive too).
 */

/** README.md of the openshift-install archives. */
export const README_INSTALL =
  '# OpenShift Install\n\nThe OpenShift installer `openshift-install` makes it easy to get a cluster\nrunning on the public cloud or your local infrastructure.\n\nTo learn more about installing OpenShift, visit [docs.openshift.com](https://docs.openshift.com)\nand select the version of OpenShift you are using.\n\n## Installing the tools\n\nAfter extracting this archive, you can move the `openshift-install` binary\nto a location on your PATH such as `/usr/local/bin`, or keep it in a temporary\ndirectory and reference it via `./openshift-install`.\n\n## License\n\nOpenShift is licensed under the Apache Public License 2.0. The source code for this\nprogram is [located on github](https://github.com/openshift/installer).\n';

/** README.md of the oc archives for Linux and macOS. */
export const README_CLI_UNIX =
  '# OpenShift Clients\n\nThe OpenShift client `oc` simplifies working with Kubernetes and OpenShift\nclusters, offering a number of advantages over `kubectl` such as easy login,\nkube config file management, and access to developer tools. The `kubectl`\nbinary is included alongside for when strict Kubernetes compliance is necessary.\n\nTo learn more about OpenShift, visit [docs.openshift.com](https://docs.openshift.com)\nand select the version of OpenShift you are using.\n\n## Installing the tools\n\nAfter extracting this archive, move the `oc` and `kubectl` binaries\nto a location on your PATH such as `/usr/local/bin`. Then run:\n\n    oc login [API_URL]\n\nto start a session against an OpenShift cluster. After login, run `oc` and\n`oc help` to learn more about how to get started with OpenShift.\n\n## License\n\nOpenShift is licensed under the Apache Public License 2.0. The source code for this\nprogram is [located on github](https://github.com/openshift/oc).\n';

/** README.md of the oc archive for Windows (its lines end in CR LF inside the zip). */
export const README_CLI_WINDOWS =
  '# OpenShift Clients\n\nThe OpenShift client `oc.exe` simplifies working with Kubernetes and OpenShift\nclusters, offering a number of advantages over `kubectl.exe` such as easy login,\nkube config file management, and access to developer tools.\n\nTo learn more about OpenShift, visit [docs.openshift.com](https://docs.openshift.com)\nand select the version of OpenShift you are using.\n\n## Installing the tools\n\nAfter extracting this archive, move the `oc.exe` binary\tto a location on your\nPATH. Then run:\n\n    oc login [API_URL]\n\nto start a session against an OpenShift cluster. After login, run `oc.exe` and\n`oc.exe help` to learn more about how to get started with OpenShift.\n\nIf you would like to use `kubectl.exe` instead, copy the `oc.exe` file\nand rename it to `kubectl.exe`. The interface will follow the conventions of that\nCLI.\n\n## License\n\nOpenShift is licensed under the Apache Public License 2.0. The source code for this\nprogram is [located on github](https://github.com/openshift/oc).\n';

/** README.md of the ccoctl archive. */
export const README_CCOCTL =
  '# Cloud Credential Operator utility\n\nThe ccoctl tool provides various commands to assist with the creating and maintenance of\ncloud credentials from outside the cluster (necessary when CCO is put in "Manual" mode).\n\nTo learn more about OpenShift, visit [docs.openshift.com](https://docs.openshift.com)\nand select the version of OpenShift you are using.\n\n## Installing the tools\n\nAfter extracting this archive, move the `ccoctl` binary to a location on your\nPATH such as `/usr/local/bin`, or keep it in a temporary directory and\nreference it via `./ccoctl`.\n\n## License\n\nOpenShift is licensed under the Apache Public License 2.0. The source code for this\nprogram is [located on github](https://github.com/openshift/cloud-credential-operator).\n';

/** The start of release.txt; the release's info (the --pullspecs view) follows. */
export const RELEASE_TXT_PREAMBLE =
  "Client tools for OpenShift\n--------------------------\n\nThese archives contain the client tooling for [OpenShift](https://docs.openshift.com).\n\nTo verify the contents of this directory, use the 'gpg' and 'shasum' tools to\nensure the archives you have downloaded match those published from this location.\n\nThe openshift-install binary has been preconfigured to install the following release:\n\n---\n\n";
