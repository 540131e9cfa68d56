# Install rules (`make install`, issue 35) and the Debian package (`make package`, CPack's DEB
# generator): one layout for both, under the install prefix (/usr for the package):
#   bin/eacu
#   share/eacu/{scripts,assets,examples}   what eacu looks up at run time (Cli.h eacuHome())
#   share/eacu/meta                        the LuaCATS stubs (stdlib/meta) for editors
#   share/eacu/windows/eacu-agent.exe      the Windows device agent (`make agent-win`)
#   share/eacu/systemd/{serve,worker}.env  examples of /etc/eacu/serve.env, worker-NAME.env
#   lib/systemd/system/eacu-serve.service, eacu-worker@.service
#   share/man/man1/eacu.1.gz               `eacu help --man`
#   share/bash-completion/completions/eacu `eacu help --bash-completion`
#   share/doc/eacu/{README.md,docs/,deploy/}
# Nothing is written outside the prefix (no /etc file, no maintainer script): removing the
# package leaves only what the services made (/var/lib/eacu).
include(GNUInstallDirs)
# `make install` and cpack install what is built and build nothing (not the test programs): the
# Makefile's install and package targets build eacu and its man page first.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)

set(EACU_INSTALL_DATA ${CMAKE_INSTALL_DATADIR}/eacu)
set(EACU_INSTALL_DOC ${CMAKE_INSTALL_DATADIR}/doc/eacu)
# The compiled-in data folder: the last place eacuHome() looks before the source tree.
target_compile_definitions(eacu PRIVATE EACU_DATA_DIR="${CMAKE_INSTALL_FULL_DATADIR}/eacu")

install(TARGETS eacu RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY scripts assets examples DESTINATION ${EACU_INSTALL_DATA})
install(DIRECTORY stdlib/meta/ DESTINATION ${EACU_INSTALL_DATA}/meta)
set(EACU_AGENT_EXE ${CMAKE_SOURCE_DIR}/build-agent/eacu-agent.exe CACHE FILEPATH
    "eacu-agent.exe to install under share/eacu/windows (make agent-win builds it); skipped when absent")
install(FILES ${EACU_AGENT_EXE} DESTINATION ${EACU_INSTALL_DATA}/windows OPTIONAL)
install(FILES deploy/systemd/serve.env deploy/systemd/worker.env DESTINATION ${EACU_INSTALL_DATA}/systemd)
install(FILES README.md DESTINATION ${EACU_INSTALL_DOC})
install(DIRECTORY docs deploy DESTINATION ${EACU_INSTALL_DOC})

# The systemd units name the installed executable: made at install time, so the prefix is the
# one installed to (cmake --install --prefix P, or CPack's /usr), not the configured one.
install(CODE "
  set(EACU_BINDIR \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}\")
  set(EACU_DATADIR \"\${CMAKE_INSTALL_PREFIX}/${EACU_INSTALL_DATA}\")
  set(EACU_DOCDIR \"\${CMAKE_INSTALL_PREFIX}/${EACU_INSTALL_DOC}\")
  foreach(unit eacu-serve.service eacu-worker@.service)
    configure_file(${CMAKE_SOURCE_DIR}/deploy/systemd/\${unit}.in ${CMAKE_BINARY_DIR}/systemd/\${unit} @ONLY)
  endforeach()
  file(INSTALL ${CMAKE_BINARY_DIR}/systemd/eacu-serve.service ${CMAKE_BINARY_DIR}/systemd/eacu-worker@.service
       DESTINATION \"\${CMAKE_INSTALL_PREFIX}/lib/systemd/system\")
")

# The manual page and the bash completion, made by the built eacu from its command table (not
# in sanitizer builds, whose eacu is not the one installed).
if(NOT EACU_SANITIZE AND NOT EACU_FUZZ)
  set(EACU_MAN ${CMAKE_BINARY_DIR}/share/man/man1/eacu.1.gz)
  set(EACU_COMPLETION ${CMAKE_BINARY_DIR}/share/bash-completion/completions/eacu)
  add_custom_command(
    OUTPUT ${EACU_MAN} ${EACU_COMPLETION}
    COMMAND ${CMAKE_COMMAND} -DEACU=$<TARGET_FILE:eacu> -DMAN=${EACU_MAN} -DCOMPLETION=${EACU_COMPLETION}
            -P ${CMAKE_SOURCE_DIR}/cmake/help_files.cmake
    DEPENDS eacu ${CMAKE_SOURCE_DIR}/cmake/help_files.cmake
    COMMENT "Manual page and bash completion from eacu's command table"
    VERBATIM)
  add_custom_target(eacu_docs ALL DEPENDS ${EACU_MAN} ${EACU_COMPLETION})
  install(FILES ${EACU_MAN} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  install(FILES ${EACU_COMPLETION} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
endif()

# ---- the Debian package: eacu_VERSION_amd64.deb (`make package`)
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME eacu)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "eacu developers <eacu@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "GUI automation with Lua scripts, image targets and a recorded run log")
set(CPACK_PACKAGE_DESCRIPTION
    "eacu runs GUI automation scripts written in Lua (locate, tap, type, verify, wait, model
planning) against an X display, a private Xvfb, a headless Chromium, an Android phone or a
Windows machine, and records every run in SQLite. It includes eacu serve (a chat page and
HTTP API) and eacu worker (tasks on many machines through Redis) with systemd units.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# The shared libraries' packages come from dpkg-shlibdeps; the OCR data is read at run time.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "tesseract-ocr-eng, tesseract-ocr-chi-sim")
# A machine with displays (a script author, a desktop worker) wants these; a server with no
# display or a phone-only worker does not.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "xvfb, openbox, xfonts-base, fonts-dejavu-core, dbus, at-spi2-core")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "chromium, adb, redis-server, x11-apps, wine64")
include(CPack)
